import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { CopyButton } from '../../components/copy/CopyButton';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { useAuthControllerResetOperatorMutation } from '../../api';

/** Reset Operator: asks first, then shows the new operator password once with a copy control. */
export function ResetOperatorDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [reset, { isLoading }] = useAuthControllerResetOperatorMutation();
  const [result, setResult] = useState<{ username: string; newPassword: string } | null>(null);
  const { copy, copied } = useCopyToClipboard();

  const close = () => {
    setResult(null);
    onClose();
  };
  const confirm = async () => {
    const answer = await reset();
    if ('error' in answer) {
      toast({
        title: 'Failed to reset operator password',
        description: bodyMessage(answer.error),
        variant: 'destructive',
      });
      return;
    }
    setResult(answer.data);
    toast({
      title: 'Operator Password Reset',
      description: 'Copy the new password now: it is shown only once.',
      variant: 'success',
    });
  };

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs" aria-labelledby="reset-operator-title">
      <DialogTitle id="reset-operator-title">Reset Operator Password</DialogTitle>
      <DialogContent>
        {result ? (
          <Stack spacing={2}>
            <Alert severity="warning">This password is shown only once. Copy it and hand it to the operator.</Alert>
            <Typography variant="body2">
              Username: <strong>{result.username}</strong>
            </Typography>
            <Stack
              direction="row"
              spacing={1}
              sx={{ alignItems: 'center', p: 1.5, bgcolor: 'action.hover', borderRadius: 1 }}
            >
              <Typography
                component="code"
                sx={{ fontFamily: 'monospace', fontSize: '1.05rem', flex: 1, wordBreak: 'break-all' }}
                data-testid="operator-password"
              >
                {result.newPassword}
              </Typography>
              <CopyButton
                copied={copied}
                label="Copy password"
                copiedLabel="Password copied"
                onClick={() => void copy(result.newPassword, { label: 'Operator password' })}
              />
            </Stack>
          </Stack>
        ) : (
          <DialogContentText>
            This generates a new password for the operator account, signs the operator out everywhere and lifts any
            lockout. Continue?
          </DialogContentText>
        )}
      </DialogContent>
      <DialogActions>
        {result ? (
          <Button variant="contained" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="contained" color="warning" onClick={() => void confirm()} disabled={isLoading}>
              {isLoading ? 'Resetting...' : 'Reset Password'}
            </Button>
          </>
        )}
      </DialogActions>
    </Dialog>
  );
}
