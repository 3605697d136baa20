import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useId } from 'react';

/**
 * Back from single sign-on while this console already holds a session: the person chooses before the code is
 * exchanged (docs/auth.md "Hand-over to the console"). A sign-in link someone else made must not switch a signed-in
 * admin to another account unasked (login CSRF). Closing the dialog stays.
 */
export function SwitchAccountDialog({
  open,
  username,
  onSwitch,
  onStay,
}: {
  open: boolean;
  /** Who is signed in now; undefined when the console could not tell. */
  username: string | undefined;
  onSwitch: () => void;
  onStay: () => void;
}) {
  const id = useId();
  return (
    <Dialog
      open={open}
      onClose={onStay}
      maxWidth="xs"
      fullWidth
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
    >
      <DialogTitle id={`${id}-title`}>Switch account?</DialogTitle>
      <DialogContent>
        <DialogContentText id={`${id}-text`}>
          {username ? `You are signed in as ${username}.` : 'You are already signed in on this console.'} Switch to the
          account you just signed in with?
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onStay} autoFocus>
          {username ? `Stay signed in as ${username}` : 'Stay signed in'}
        </Button>
        <Button variant="contained" onClick={onSwitch}>
          Switch account
        </Button>
      </DialogActions>
    </Dialog>
  );
}
