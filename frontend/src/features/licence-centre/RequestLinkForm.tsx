import MarkEmailReadOutlined from '@mui/icons-material/MarkEmailReadOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState, type FormEvent } from 'react';
import { bodyMessage } from '../../utils/httpError';
import { validateField } from '../redeem/redeemRules';
import { useCustomerCentreControllerRequestAccessMutation } from '../../api';

const FAILED = 'The request could not be sent. Please try again in a minute or contact support.';

/** Step 1: the address the licences were issued to; the answer is the same whatever it is ("check your inbox"). */
export function RequestLinkForm({ notice }: { notice?: { severity: 'info' | 'success' | 'warning'; text: string } }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sent, setSent] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [request, { isLoading }] = useCustomerCentreControllerRequestAccessMutation();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateField('email', email);
    setError(found);
    if (found) return;
    setFailure(null);
    const result = await request({ email: email.trim().toLowerCase() });
    if ('error' in result) setFailure(bodyMessage(result.error) ?? FAILED);
    else setSent(result.data.message);
  };

  if (sent) {
    return (
      <Paper
        variant="outlined"
        component="section"
        aria-labelledby="inbox-title"
        sx={{ p: { xs: 3, sm: 4 }, textAlign: 'center' }}
      >
        <MarkEmailReadOutlined color="primary" sx={{ fontSize: 48 }} aria-hidden />
        <Typography id="inbox-title" variant="h2" sx={{ my: 1 }}>
          Check your inbox
        </Typography>
        <Typography role="status">{sent}</Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mt: 1 }}>
          The link works once, for 30 minutes. Can't find it? Please check your spam or junk folder.
        </Typography>
        <Button sx={{ mt: 2 }} onClick={() => setSent(null)}>
          Use another e-mail address
        </Button>
      </Paper>
    );
  }

  return (
    <Paper variant="outlined" component="section" aria-labelledby="request-title" sx={{ p: { xs: 3, sm: 4 } }}>
      <Typography id="request-title" variant="h2" sx={{ mb: 1 }}>
        Sign in with your e-mail address
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
        Enter the e-mail address you redeemed your vouchers with. We will send you a sign-in link: no password needed.
      </Typography>
      {notice && (
        <Alert severity={notice.severity} sx={{ mb: 2 }}>
          {notice.text}
        </Alert>
      )}
      {failure && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {failure}
        </Alert>
      )}
      <Box component="form" noValidate onSubmit={(event) => void submit(event)}>
        <Stack spacing={1}>
          <TextField
            id="licence-centre-email"
            label="E-mail address"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              if (error) setError(validateField('email', e.target.value));
            }}
            onBlur={() => setError(validateField('email', email))}
            error={!!error}
            helperText={error ?? ' '}
            slotProps={{ htmlInput: { 'aria-invalid': !!error } }}
          />
          <Box>
            <Button
              type="submit"
              variant="contained"
              disabled={isLoading}
              startIcon={isLoading ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              Send me a sign-in link
            </Button>
          </Box>
        </Stack>
      </Box>
    </Paper>
  );
}
