import ArrowBack from '@mui/icons-material/ArrowBack';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router-dom';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';

/** `/admin/security`, opened from the dashboard header: the signed-in user's two-factor authentication and sessions. */
export function SecurityPage() {
  useDocumentTitle('Security');
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <Paper
        component="header"
        square
        elevation={0}
        sx={{ borderBottom: 1, borderColor: 'divider', px: { xs: 2, md: 4 }, py: 2 }}
      >
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
          <Typography variant="h1">Security</Typography>
          <Button component={RouterLink} to="/admin" variant="outlined" startIcon={<ArrowBack />}>
            Back to Dashboard
          </Button>
        </Stack>
      </Paper>
      <Container component="main" maxWidth="lg" sx={{ py: 3 }}>
        <Stack spacing={3}>
          <Paper variant="outlined" sx={{ p: { xs: 2, md: 3 } }}>
            <TwoFactorSection />
          </Paper>
          <Paper variant="outlined" sx={{ p: { xs: 2, md: 3 } }}>
            <SessionsSection />
          </Paper>
        </Stack>
      </Container>
    </Box>
  );
}

export default SecurityPage;
