import LockOutlined from '@mui/icons-material/LockOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Divider from '@mui/material/Divider';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/store';
import { dismissToast, toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { usePublicConfig } from '../site/usePublicConfig';
import { exchangeSsoCode } from './session';
import { SwitchAccountDialog } from './SwitchAccountDialog';
import { prerenderedInput } from '../../app/prerenderedInput';
import { storeTokens } from './tokenStorage';
import { useAccessToken } from './useAccessToken';
import { useAuthControllerLoginMutation, useAuthControllerMeQuery } from '../../api';

/** docs/product.md §10.4: navigation to the dashboard about 100 ms after a successful login. */
export const LOGIN_NAVIGATION_DELAY_MS = 100;

/** What the login page says when single sign-on came back refused (`#sso-error=<reason>`, set by the server). */
export const SSO_ERRORS: Record<string, string> = {
  'no-role': 'Your account has no role in this service. Ask an administrator to add you to a group that grants access.',
  unverified:
    'The sign-in provider has not verified the identity this service grants access by. Verify your e-mail address ' +
    'there, or ask an administrator.',
  domain: 'Your account does not belong to an organisation allowed to sign in here. Ask an administrator.',
  inactive: 'This account is deactivated. Ask an administrator.',
  unavailable: 'The sign-in provider cannot be reached. Please try again later.',
  failed: 'Single sign-on did not complete. Please try again.',
};

/**
 * The single sign-on code taken from the fragment, until it is exchanged or the person stays. Kept outside the
 * component as well: a login page mounted again after the fragment has left the address bar still holds the code
 * (and asks before switching) instead of forgetting it.
 */
let pendingSsoCode: string | null = null;

const USERNAME_ID = 'login-username';
const PASSWORD_ID = 'login-password';

/**
 * `/admin/login` is prerendered (frontend/build/page-files.mts): the form can be typed into before the app has
 * loaded. Read while the page hydrates (which empties the fields), so what was typed is taken over; nothing
 * when rendered anywhere else. The prerendered "Sign In" is disabled, so nothing is submitted before.
 */
function typedBeforeLoad(): { username: string; password: string } {
  const value = (id: string) => prerenderedInput(id)?.value ?? '';
  return { username: value(USERNAME_ID), password: value(PASSWORD_ID) };
}

/** docs/product.md §3.1 Admin login: credentials, then the 6-digit code when two-factor authentication is on. */
export function LoginPage() {
  useDocumentTitle('Admin Login');
  const [login, { isLoading }] = useAuthControllerLoginMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const location = useLocation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [early] = useState(typedBeforeLoad);
  useEffect(() => {
    if (early.username) setUsername(early.username);
    if (early.password) setPassword(early.password);
  }, [early]);
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  // Lost the authenticator: one of the recovery codes instead of the 6-digit code.
  const [useRecovery, setUseRecovery] = useState(false);
  const [recoveryCode, setRecoveryCode] = useState('');
  const secondFactorInput = useRef<HTMLInputElement>(null);
  // Switching between the code and a recovery code puts the caret in the new field (keyboard users).
  useEffect(() => {
    if (needsCode) secondFactorInput.current?.focus();
  }, [needsCode, useRecovery]);
  const [succeeded, setSucceeded] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  // Someone already signed in (a valid session) goes straight to the console.
  const token = useAccessToken();
  const me = useAuthControllerMeQuery(undefined, { skip: !token || succeeded });
  const signedIn = me.data;

  const from = (location.state as { from?: { pathname?: string } } | null)?.from?.pathname;
  const target = from && from.startsWith('/admin') && from !== '/admin/login' ? from : '/admin';

  // The prerendered page has no provider button: it appears once the app runs (hydration sees the same markup).
  const { ssoDisplayName } = usePublicConfig();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  // Back from the provider: `#sso-code=<one-time code>` or `#sso-error=<reason>`. The fragment leaves the address bar
  // (and the history entry) before anything else happens; the code waits in `ssoCode` until it is exchanged.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const arriving = fragment.has('sso-code') || fragment.has('sso-error');
  // Held from the first render on (not set by the effect below): a render that commits before that effect's update
  // (the session check answering in between) must not find the page without a code and send the person onward.
  const [ssoCode, setSsoCodeState] = useState<string | null>(() => pendingSsoCode ?? fragment.get('sso-code'));
  const setSsoCode = useCallback((code: string | null) => {
    pendingSsoCode = code;
    setSsoCodeState(code);
  }, []);
  const [exchanging, setExchanging] = useState(false);
  const handoff = useRef(false);
  useEffect(() => {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const code = fragment.get('sso-code');
    const error = fragment.get('sso-error');
    if ((!code && !error) || handoff.current) return;
    handoff.current = true;
    void navigate({ pathname: location.pathname, search: location.search }, { replace: true });
    if (error || !code) {
      toast({
        title: 'Login Failed',
        description: SSO_ERRORS[error ?? ''] ?? SSO_ERRORS.failed,
        variant: 'destructive',
      });
      return;
    }
    setSsoCode(code);
  }, [location, navigate, setSsoCode]);

  const exchange = useCallback(
    async (code: string) => {
      setSsoCode(null);
      setExchanging(true);
      const outcome = await exchangeSsoCode(code);
      setExchanging(false);
      if (!outcome.ok) {
        toast({ title: 'Login Failed', description: outcome.message ?? SSO_ERRORS.failed, variant: 'destructive' });
        return;
      }
      dispatch(api.util.resetApiState());
      setSucceeded(true);
      dismissToast(); // docs/product.md §3.18
      timer.current = setTimeout(() => void navigate('/admin', { replace: true }), LOGIN_NAVIGATION_DELAY_MS);
    },
    [dispatch, navigate, setSsoCode],
  );
  // No session here: the code is exchanged at once. A session here (its user known, or the check failed without
  // ending it): the person is asked first (SwitchAccountDialog), and nothing is exchanged unless they switch.
  const askToSwitch = ssoCode !== null && token !== null && (me.isSuccess || me.isError);
  useEffect(() => {
    if (ssoCode !== null && !token) void exchange(ssoCode);
  }, [ssoCode, token, exchange]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading || succeeded) return;
    const second = !needsCode ? {} : useRecovery ? { recoveryCode: recoveryCode.trim() } : { twoFactorCode: code };
    const result = await login({ username: username.trim(), password, ...second });
    if ('error' in result) {
      toast({
        title: 'Login Failed',
        description: bodyMessage(result.error) ?? 'Login failed. Please check your credentials.',
        variant: 'destructive',
      });
      // docs/product.md §5.6: on failure the form and the two-factor state reset.
      setPassword('');
      setCode('');
      setRecoveryCode('');
      setUseRecovery(false);
      setNeedsCode(false);
      return;
    }
    const { accessToken, refreshToken, requiresTwoFactor } = result.data;
    if (requiresTwoFactor || !accessToken) {
      setNeedsCode(true);
      setCode('');
      toast({
        title: 'Two-Factor Authentication Required',
        description: 'Please enter your 6-digit authentication code.',
      });
      return;
    }
    dispatch(api.util.resetApiState());
    storeTokens(accessToken, refreshToken);
    setSucceeded(true);
    // docs/product.md §3.18: a "Login Failed" (or any other toast) does not follow the person onto the dashboard.
    dismissToast();
    timer.current = setTimeout(() => void navigate(target, { replace: true }), LOGIN_NAVIGATION_DELAY_MS);
  };

  const backToLogin = () => {
    setNeedsCode(false);
    setUseRecovery(false);
    setRecoveryCode('');
    setCode('');
    setPassword('');
  };

  if (signedIn && !succeeded && !arriving && ssoCode === null && !exchanging) return <Navigate to={target} replace />;
  const busy = isLoading || succeeded || exchanging;
  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 2, bgcolor: 'background.default' }}
    >
      <SwitchAccountDialog
        open={askToSwitch}
        username={signedIn?.username}
        onSwitch={() => void exchange(ssoCode!)}
        onStay={() => setSsoCode(null)}
      />
      <Card sx={{ width: '100%', maxWidth: 420 }}>
        <CardContent sx={{ p: 4 }}>
          <Stack spacing={1} sx={{ alignItems: 'center', mb: 3 }}>
            <LockOutlined color="primary" fontSize="large" aria-hidden />
            <Typography variant="h1" sx={{ fontSize: '1.6rem' }}>
              Admin Login
            </Typography>
            <Typography variant="body2" sx={{ color: 'text.secondary' }}>
              {needsCode
                ? useRecovery
                  ? 'Enter one of your recovery codes. Each code works once.'
                  : 'Enter the 6-digit code from your authenticator app.'
                : 'Sign in to manage vouchers, licenses and redemptions.'}
            </Typography>
          </Stack>
          {hydrated && ssoDisplayName && !needsCode && (
            <Stack spacing={2} sx={{ mb: 2 }}>
              <Button variant="contained" size="large" href="/api/admin/oidc/login" disabled={busy}>
                {`Sign in with ${ssoDisplayName}`}
              </Button>
              <Divider>or</Divider>
            </Stack>
          )}
          <Stack component="form" spacing={2} onSubmit={(event) => void submit(event)} noValidate>
            {needsCode && useRecovery ? (
              <TextField
                label="Recovery Code"
                value={recoveryCode}
                onChange={(e) => setRecoveryCode(e.target.value.slice(0, 64))}
                inputRef={secondFactorInput}
                autoComplete="off"
                required
                helperText="One of the recovery codes you saved when you turned on two-factor authentication."
              />
            ) : needsCode ? (
              <TextField
                label="Authentication Code"
                value={code}
                onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
                inputRef={secondFactorInput}
                autoComplete="one-time-code"
                required
                slotProps={{ htmlInput: { maxLength: 6, inputMode: 'numeric', pattern: '[0-9]{6}' } }}
              />
            ) : (
              <>
                <TextField
                  id={USERNAME_ID}
                  label="Username"
                  value={username}
                  onChange={(e) => setUsername(e.target.value)}
                  autoComplete="username"
                  autoFocus
                  required
                />
                <TextField
                  id={PASSWORD_ID}
                  label="Password"
                  type="password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  autoComplete="current-password"
                  required
                />
              </>
            )}
            <Button
              type="submit"
              variant="contained"
              size="large"
              disabled={
                busy ||
                (needsCode ? (useRecovery ? !recoveryCode.trim() : code.length !== 6) : !username.trim() || !password)
              }
            >
              {busy ? 'Authenticating...' : needsCode ? 'Verify Code' : 'Sign In'}
            </Button>
            {needsCode && (
              <Button
                variant="text"
                onClick={() => {
                  setUseRecovery((r) => !r);
                  setCode('');
                  setRecoveryCode('');
                }}
                disabled={busy}
              >
                {useRecovery ? 'Use Authentication Code' : 'Use a Recovery Code'}
              </Button>
            )}
            {needsCode && (
              <Button variant="text" onClick={backToLogin} disabled={busy}>
                Back to Login
              </Button>
            )}
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}

export default LoginPage;
