import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';

const STEPS = [
  { title: 'Log in', text: 'Sign in to your account on the marketplace where you bought the deal.' },
  { title: 'Go to My vouchers', text: 'Open the My vouchers section of your account.' },
  { title: 'Select the deal', text: 'Choose the office-suite 2024 deal you purchased.' },
  { title: 'Reveal the voucher code', text: 'Reveal the code and copy it into the Voucher Code field.' },
];

/** Side panel: the four steps for finding the voucher code. */
export function VoucherHelp() {
  return (
    <Paper variant="outlined" component="section" aria-labelledby="voucher-help-title" sx={{ p: 3 }}>
      <Typography id="voucher-help-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 2 }}>
        How to find your voucher code
      </Typography>
      <Box component="ol" sx={{ m: 0, p: 0, listStyle: 'none', display: 'grid', gap: 2 }}>
        {STEPS.map((step, i) => (
          <Box component="li" key={step.title} sx={{ display: 'flex', gap: 1.5 }}>
            <Box
              aria-hidden
              sx={{
                flex: '0 0 28px',
                height: 28,
                borderRadius: '50%',
                bgcolor: 'primary.main',
                color: 'primary.contrastText',
                display: 'grid',
                placeItems: 'center',
                fontWeight: 700,
                fontSize: 14,
              }}
            >
              {i + 1}
            </Box>
            <Box>
              <Typography variant="subtitle2" component="p">
                <Box component="span" sx={visuallyHidden}>{`Step ${i + 1}: `}</Box>
                {step.title}
              </Typography>
              <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                {step.text}
              </Typography>
            </Box>
          </Box>
        ))}
      </Box>
    </Paper>
  );
}

const visuallyHidden = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  margin: '-1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;
