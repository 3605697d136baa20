import HelpOutlinedIcon from '@mui/icons-material/HelpOutlined';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router-dom';
import { ResendEmailLink } from '../resend/ResendEmailLink';
import { usePublicConfig } from '../site/usePublicConfig';

const TOPICS = ['Installation troubleshooting', 'Activation issues', 'Product key problems', 'Compatibility questions'];

/**
 * "Need help?" panel of the success pages: e-mail support, the topics it covers, and "Didn't get the e-mail?"
 * (the customer's address and voucher code from the token answer filled in, docs/product.md §19.4).
 */
export function HelpPanel({ email, voucherCode }: { email?: string; voucherCode?: string }) {
  const { supportEmail } = usePublicConfig();
  return (
    <Paper variant="outlined" component="section" aria-labelledby="help-title" sx={{ p: 3 }}>
      <Typography
        id="help-title"
        variant="h2"
        sx={{ fontSize: '1.15rem', display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}
      >
        <HelpOutlinedIcon color="primary" aria-hidden /> Need Help?
      </Typography>
      <Typography variant="body2">
        E-mail support: {supportEmail && <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>}
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
        We usually reply within 2-4 hours during business hours. We can help with:
      </Typography>
      <Box component="ul" sx={{ m: 0, pl: 3 }}>
        {TOPICS.map((topic) => (
          <Typography component="li" variant="body2" key={topic}>
            {topic}
          </Typography>
        ))}
      </Box>
      <Box sx={{ mt: 2 }}>
        <ResendEmailLink email={email} voucherCode={voucherCode} />
      </Box>
      <Typography variant="body2" sx={{ mt: 1 }}>
        All your licences, any time:{' '}
        <Link component={RouterLink} to="/my-licences">
          My licences
        </Link>
      </Typography>
    </Paper>
  );
}
