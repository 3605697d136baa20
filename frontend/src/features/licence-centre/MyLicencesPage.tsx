import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useHydrated } from '../../app/useHydrated';
import { bodyMessage } from '../../utils/httpError';
import { PublicLayout } from '../site/PublicLayout';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { LicenceCard } from './LicenceCard';
import { storedSession, storeSession, type CustomerSession } from './licenceCentreApi';
import { PrivacyPanel } from './PrivacyPanel';
import { RequestLinkForm } from './RequestLinkForm';
import { useCustomerCentreControllerLicencesQuery, useCustomerCentreControllerOpenSessionMutation } from '../../api';

export const PAGE_TITLE = 'My Licences';
const LINK_EXPIRED = 'This sign-in link has expired. Please request a new one.';
const SESSION_ENDED = 'Your session has ended. Please request a new sign-in link.';

type Notice = { severity: 'info' | 'success' | 'warning'; text: string };

/** Links already being spent in this tab: a sign-in link works once (React may run an effect twice). */
const spending = new Set<string>();

/**
 * `/my-licences` (docs/product.md §21): ask for a sign-in link, open it (the token in the address is
 * spent once for a 24-hour session kept in this tab, then removed from the address), see every licence of the
 * address, and download or delete one's data. Prerendered in its first state, the request form.
 */
export function MyLicencesPage() {
  useDocumentTitle(PAGE_TITLE, 'See every licence issued to your e-mail address, download your data or delete it.');
  const hydrated = useHydrated();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token');
  const [session, setSession] = useState<CustomerSession | null>(null);
  const [notice, setNotice] = useState<Notice | undefined>();
  const [openSession] = useCustomerCentreControllerOpenSessionMutation();
  const opening = useRef(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (hydrated && !token) setSession(storedSession());
  }, [hydrated, token]);

  useEffect(() => {
    if (!hydrated || !token || spending.has(token)) return;
    spending.add(token);
    opening.current = true;
    setBusy(true);
    void openSession({ token }).then((result) => {
      if ('error' in result) {
        setNotice({ severity: 'warning', text: bodyMessage(result.error) ?? LINK_EXPIRED });
      } else {
        storeSession(result.data);
        setSession(result.data);
      }
      setBusy(false);
      // The token leaves the address bar (and the history) once spent.
      void navigate('/my-licences', { replace: true });
    });
  }, [hydrated, token, openSession, navigate]);

  const end = useCallback((next?: Notice) => {
    storeSession(null);
    setSession(null);
    setNotice(next);
  }, []);

  return (
    <PublicLayout maxWidth="md">
      <Box sx={{ mb: 3 }}>
        <Typography variant="h1">{PAGE_TITLE}</Typography>
        <Typography sx={{ color: 'text.secondary', mt: 1 }}>
          Every licence issued to your e-mail address, in one place.
        </Typography>
      </Box>
      {busy || (hydrated && token) ? (
        <Box aria-busy="true" sx={{ display: 'flex', gap: 2, alignItems: 'center', py: 4 }}>
          <CircularProgress size={24} aria-hidden />
          <Typography role="status">Signing you in…</Typography>
        </Box>
      ) : session ? (
        <SignedIn
          session={session}
          onSignOut={() => end()}
          onExpired={() => end({ severity: 'warning', text: SESSION_ENDED })}
          onErased={(text) => end({ severity: 'success', text })}
        />
      ) : (
        <RequestLinkForm notice={notice} />
      )}
    </PublicLayout>
  );
}

function SignedIn({
  session,
  onSignOut,
  onExpired,
  onErased,
}: {
  session: CustomerSession;
  onSignOut: () => void;
  onExpired: () => void;
  onErased: (message: string) => void;
}) {
  const { data, error, isLoading } = useCustomerCentreControllerLicencesQuery(undefined, {
    // Each sign-in reads its own list (the session's token goes with each call, not in the cache key).
    refetchOnMountOrArgChange: true,
  });
  const expired = !!error && 'status' in error && error.status === 401;
  useEffect(() => {
    if (expired) onExpired();
  }, [expired, onExpired]);

  return (
    <Stack spacing={3}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography>
          Signed in as <strong>{session.email}</strong>
        </Typography>
        <Button onClick={onSignOut}>Sign out</Button>
      </Stack>
      <Box component="section" aria-labelledby="licences-title">
        <Typography id="licences-title" variant="h2" sx={{ mb: 2 }}>
          Your licences
        </Typography>
        {isLoading && <CircularProgress aria-label="Loading your licences" />}
        {error && !expired && (
          <Alert severity="error">Your licences could not be loaded. Please try again later.</Alert>
        )}
        {data && data.length === 0 && <Alert severity="info">No licences were issued to this e-mail address.</Alert>}
        {data && data.length > 0 && (
          <Box component="ul" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 2 }}>
            {data.map((licence) => (
              <LicenceCard key={licence.redemptionId} licence={licence} onExpired={onExpired} />
            ))}
          </Box>
        )}
      </Box>
      <PrivacyPanel token={session.customerToken} onErased={onErased} onExpired={onExpired} />
    </Stack>
  );
}

export default MyLicencesPage;
