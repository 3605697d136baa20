import MailOutlinedIcon from '@mui/icons-material/MailOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { ResendEmailLink } from '../resend/ResendEmailLink';
import { usePublicConfig } from '../site/usePublicConfig';

/** Side panel: e-mail support with a mailto button, and the self-service resend of the order e-mail. */
export function SupportPanel() {
  const { supportEmail } = usePublicConfig();
  return (
    <Paper variant="outlined" component="section" aria-labelledby="support-title" sx={{ p: 3 }}>
      <Typography id="support-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
        Need help?
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
        Our support team answers by e-mail{supportEmail ? ` at ${supportEmail}` : ''}, usually within 2-4 hours during
        business hours.
      </Typography>
      <Button
        variant="outlined"
        startIcon={<MailOutlinedIcon />}
        href={supportEmail ? `mailto:${supportEmail}` : undefined}
        disabled={!supportEmail}
      >
        Contact Support
      </Button>
      <Box sx={{ mt: 2 }}>
        <ResendEmailLink />
      </Box>
    </Paper>
  );
}
