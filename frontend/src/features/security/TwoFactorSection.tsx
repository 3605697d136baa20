import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState, type FormEvent, type ReactNode } from 'react';
import { CopyButton } from '../../components/copy/CopyButton';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { toast } from '../../components/toast';
import { errorText } from '../redemptions/errors';
import { PasswordField } from '../account/PasswordField';
import { RecoveryCodesPanel } from './RecoveryCodesPanel';
import { type TwoFactorSetup } from './securityApi';
import {
  useAuthControllerDisableTwoFactorMutation,
  useAuthControllerEnableTwoFactorMutation,
  useAuthControllerMeQuery,
  useAuthControllerRegenerateRecoveryCodesMutation,
  useAuthControllerSetupTwoFactorMutation,
} from '../../api';

/** Failure toasts in docs/product.md §9.3's shape: a title, the server's message or a fallback. */
export const SECURITY_ERRORS = {
  setup: { title: 'Two-Factor Setup Failed', fallback: 'Failed to start two-factor setup. Please try again.' },
  enable: {
    title: 'Two-Factor Activation Failed',
    fallback: 'Failed to enable two-factor authentication. Please try again.',
  },
  disable: {
    title: 'Failed to disable two-factor authentication',
    fallback: 'There was an error disabling two-factor authentication.',
  },
  regenerate: {
    title: 'Failed to regenerate recovery codes',
    fallback: 'There was an error creating new recovery codes.',
  },
} as const;

function fail(which: keyof typeof SECURITY_ERRORS, err: unknown) {
  const { title, fallback } = SECURITY_ERRORS[which];
  toast({ title, description: errorText(err, fallback), variant: 'destructive' });
}

/** A 6-digit authenticator code: digits only, at most 6 (docs/product.md §6.4 two-factor code). */
function CodeField({
  label,
  value,
  onChange,
  autoFocus,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <TextField
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value.replace(/\D/g, '').slice(0, 6))}
      autoComplete="one-time-code"
      autoFocus={autoFocus}
      required
      size="small"
      sx={{ maxWidth: 240 }}
      slotProps={{ htmlInput: { maxLength: 6, inputMode: 'numeric', pattern: '[0-9]{6}' } }}
    />
  );
}

/** A one-field form with its submit button: Enter submits, the button stays off until the code has 6 digits. */
function CodeForm({
  label,
  action,
  busy,
  onSubmit,
  children,
}: {
  label: string;
  action: string;
  busy: boolean;
  onSubmit: (code: string) => Promise<boolean>;
  children?: ReactNode;
}) {
  const [code, setCode] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (code.length !== 6 || busy) return;
    if (await onSubmit(code)) setCode('');
  };
  return (
    <Stack component="form" noValidate spacing={1.5} onSubmit={(event) => void submit(event)} aria-label={action}>
      {children}
      <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 1.5, alignItems: { sm: 'center' } }}>
        <CodeField label={label} value={code} onChange={setCode} />
        <Button type="submit" variant="outlined" disabled={busy || code.length !== 6}>
          {action}
        </Button>
      </Stack>
    </Stack>
  );
}

type Step =
  | { kind: 'idle' }
  | { kind: 'password' }
  | { kind: 'verify'; setup: TwoFactorSetup }
  | { kind: 'codes'; codes: string[] };

/**
 * Two-factor authentication of the signed-in user: enrol (current password → QR code and secret → 6-digit code
 * → recovery codes shown once), disable with a current code, regenerate the recovery codes with a current code.
 */
export function TwoFactorSection() {
  const { data: me } = useAuthControllerMeQuery();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [setup, setupState] = useAuthControllerSetupTwoFactorMutation();
  const [enable, enableState] = useAuthControllerEnableTwoFactorMutation();
  const [disable, disableState] = useAuthControllerDisableTwoFactorMutation();
  const [regenerate, regenerateState] = useAuthControllerRegenerateRecoveryCodesMutation();
  const { copy, copied } = useCopyToClipboard();
  const enabled = !!me?.twoFactorEnabled;

  const startSetup = async (e: FormEvent) => {
    e.preventDefault();
    if (!password || setupState.isLoading) return;
    try {
      const answer = await setup({ currentPassword: password }).unwrap();
      setPassword('');
      setCode('');
      setStep({ kind: 'verify', setup: answer });
    } catch (err) {
      fail('setup', err);
    }
  };

  const confirmCode = async (e: FormEvent) => {
    e.preventDefault();
    if (code.length !== 6 || enableState.isLoading) return;
    try {
      const { recoveryCodes } = await enable({ code }).unwrap();
      toast({
        title: 'Two-Factor Authentication Enabled',
        description: 'Save your recovery codes now: they are shown only once.',
        variant: 'success',
      });
      setStep({ kind: 'codes', codes: recoveryCodes });
    } catch (err) {
      setCode('');
      fail('enable', err);
    }
  };

  const turnOff = async (value: string) => {
    try {
      await disable({ code: value }).unwrap();
      toast({
        title: 'Two-Factor Authentication Disabled',
        description: 'Your account now signs in with the password alone.',
        variant: 'success',
      });
      return true;
    } catch (err) {
      fail('disable', err);
      return false;
    }
  };

  const newCodes = async (value: string) => {
    try {
      const { recoveryCodes } = await regenerate({ code: value }).unwrap();
      toast({
        title: 'Recovery Codes Regenerated',
        description: 'Your earlier recovery codes no longer work.',
        variant: 'success',
      });
      setStep({ kind: 'codes', codes: recoveryCodes });
      return true;
    } catch (err) {
      fail('regenerate', err);
      return false;
    }
  };

  const cancel = () => {
    setPassword('');
    setCode('');
    setStep({ kind: 'idle' });
  };

  let body: ReactNode;
  if (step.kind === 'codes') {
    body = (
      <RecoveryCodesPanel codes={step.codes} username={me?.username ?? ''} onDone={() => setStep({ kind: 'idle' })} />
    );
  } else if (step.kind === 'verify') {
    body = (
      <Stack
        component="form"
        noValidate
        spacing={2}
        onSubmit={(event) => void confirmCode(event)}
        aria-label="Verify authenticator code"
      >
        <Typography>1. Scan this QR code with your authenticator app, or enter the secret by hand.</Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 3, alignItems: { sm: 'center' } }}>
          <Box
            component="img"
            src={step.setup.qrCodeDataUrl}
            alt="QR code for your authenticator app"
            sx={{ width: 180, height: 180, border: 1, borderColor: 'divider', borderRadius: 1 }}
          />
          <Stack spacing={0.5}>
            <Typography variant="body2" sx={{ color: 'text.secondary' }} id="totp-secret-label">
              Secret for manual entry
            </Typography>
            <Stack direction="row" sx={{ alignItems: 'center', gap: 1 }}>
              <Typography
                data-testid="totp-secret"
                aria-labelledby="totp-secret-label"
                sx={{ fontFamily: 'monospace', fontSize: '1.05rem', wordBreak: 'break-all' }}
              >
                {step.setup.secret}
              </Typography>
              <CopyButton
                copied={copied}
                label="Copy secret"
                copiedLabel="Secret copied"
                onClick={() => void copy(step.setup.secret, { label: 'Secret' })}
              />
            </Stack>
          </Stack>
        </Stack>
        <Typography>2. Enter the 6-digit code the app shows.</Typography>
        <CodeField label="Authentication Code" value={code} onChange={setCode} autoFocus />
        <Stack direction="row" spacing={1}>
          <Button type="submit" variant="contained" disabled={enableState.isLoading || code.length !== 6}>
            {enableState.isLoading ? 'Verifying...' : 'Enable Two-Factor Authentication'}
          </Button>
          <Button onClick={cancel}>Cancel</Button>
        </Stack>
      </Stack>
    );
  } else if (step.kind === 'password') {
    body = (
      <Stack
        component="form"
        noValidate
        spacing={2}
        onSubmit={(event) => void startSetup(event)}
        aria-label="Confirm your password"
      >
        <Typography>Enter your current password to start.</Typography>
        <PasswordField
          label="Current Password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="current-password"
          autoFocus
          size="small"
          sx={{ maxWidth: 360 }}
        />
        <Stack direction="row" spacing={1}>
          <Button type="submit" variant="contained" disabled={setupState.isLoading || !password}>
            {setupState.isLoading ? 'Checking...' : 'Continue'}
          </Button>
          <Button onClick={cancel}>Cancel</Button>
        </Stack>
      </Stack>
    );
  } else if (enabled) {
    body = (
      <Stack spacing={3} divider={<Divider flexItem />}>
        <CodeForm
          label="Current code"
          action="Disable Two-Factor Authentication"
          busy={disableState.isLoading}
          onSubmit={turnOff}
        >
          <Typography>
            To turn two-factor authentication off, enter a current code from your authenticator app.
          </Typography>
        </CodeForm>
        <CodeForm
          label="Current code"
          action="Regenerate Recovery Codes"
          busy={regenerateState.isLoading}
          onSubmit={newCodes}
        >
          <Typography>
            Lost or used up your recovery codes? New codes replace the old ones, which stop working.
          </Typography>
        </CodeForm>
      </Stack>
    );
  } else {
    body = (
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Typography>
          Protect your account with a 6-digit code from an authenticator app in addition to your password.
        </Typography>
        <Button variant="contained" onClick={() => setStep({ kind: 'password' })}>
          Set Up Two-Factor Authentication
        </Button>
      </Stack>
    );
  }

  return (
    <Stack spacing={2}>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1.5, flexWrap: 'wrap' }}>
        <Typography variant="h2" id="two-factor-title" sx={{ fontSize: '1.3rem' }}>
          Two-Factor Authentication
        </Typography>
        {me && <Chip size="small" label={enabled ? 'On' : 'Off'} color={enabled ? 'success' : 'default'} />}
      </Stack>
      {enabled && step.kind === 'idle' && (
        <Alert severity="success">Two-factor authentication is on for your account.</Alert>
      )}
      {body}
    </Stack>
  );
}
