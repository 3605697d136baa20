import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { errorText } from '../redemptions/errors';
import { formatDateTime } from '../redemptions/formatDate';
import { deviceName } from './deviceName';
import { type OwnSession } from './securityApi';
import {
  useSessionsControllerListQuery,
  useSessionsControllerRevokeMutation,
  useSessionsControllerRevokeOthersMutation,
} from '../../api';

/**
 * Where the user is signed in: browser and system from the user agent, address, sign-in and last use, "This
 * device" marked. Any other session can be signed out, one by one or all at once.
 */
export function SessionsSection() {
  const { data: sessions, isLoading } = useSessionsControllerListQuery();
  const [endSession, endState] = useSessionsControllerRevokeMutation();
  const [endOthers, endOthersState] = useSessionsControllerRevokeOthersMutation();
  const [confirmOthers, setConfirmOthers] = useState(false);
  const others = (sessions ?? []).filter((s) => !s.current);

  const signOut = async (session: OwnSession) => {
    try {
      await endSession(session.id).unwrap();
      toast({
        title: 'Session signed out',
        description: `${deviceName(session.userAgent)} is signed out.`,
        variant: 'success',
      });
    } catch (err) {
      toast({
        title: 'Failed to sign out session',
        description: errorText(err, 'There was an error signing out the session.'),
        variant: 'destructive',
      });
    }
  };

  const signOutOthers = async () => {
    try {
      const { revoked } = await endOthers().unwrap();
      toast({
        title: 'Signed out everywhere else',
        description: `${revoked} other session(s) signed out.`,
        variant: 'success',
      });
    } catch (err) {
      toast({
        title: 'Failed to sign out other sessions',
        description: errorText(err, 'There was an error signing out your other sessions.'),
        variant: 'destructive',
      });
    } finally {
      setConfirmOthers(false);
    }
  };

  return (
    <Stack spacing={2}>
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
        <Typography variant="h2" sx={{ fontSize: '1.3rem' }}>
          Sessions
        </Typography>
        <Button
          variant="outlined"
          color="error"
          disabled={others.length === 0 || endOthersState.isLoading}
          onClick={() => setConfirmOthers(true)}
        >
          Sign out everywhere else
        </Button>
      </Stack>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        Where your account is signed in. Sign out any session you do not recognise, and change your password.
      </Typography>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label="Sessions">
          <TableHead>
            <TableRow>
              <TableCell>Device</TableCell>
              <TableCell>IP Address</TableCell>
              <TableCell>Signed In</TableCell>
              <TableCell>Last Used</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {(sessions ?? []).map((s) => (
              <TableRow key={s.id} data-testid="session-row" selected={s.current}>
                <TableCell>
                  <Stack direction="row" sx={{ alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                    <span title={s.userAgent ?? undefined}>{deviceName(s.userAgent)}</span>
                    {s.current && <Chip size="small" color="primary" label="This device" />}
                  </Stack>
                </TableCell>
                <TableCell>{s.ip ?? 'Unknown'}</TableCell>
                <TableCell>{formatDateTime(s.createdAt)}</TableCell>
                <TableCell>{formatDateTime(s.lastUsedAt)}</TableCell>
                <TableCell align="right">
                  {!s.current && (
                    <Button
                      size="small"
                      color="error"
                      disabled={endState.isLoading}
                      aria-label={`Sign out ${deviceName(s.userAgent)} (${s.ip ?? 'unknown address'})`}
                      onClick={() => void signOut(s)}
                    >
                      Sign out
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
            {!isLoading && sessions?.length === 0 && (
              <TableRow>
                <TableCell colSpan={5}>No sessions found.</TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <ConfirmDialog
        open={confirmOthers}
        title="Sign out everywhere else"
        confirmLabel="Sign out"
        busy={endOthersState.isLoading}
        onConfirm={() => void signOutOthers()}
        onClose={() => setConfirmOthers(false)}
      >
        Sign out all {others.length} other session(s)? This device stays signed in.
      </ConfirmDialog>
    </Stack>
  );
}
