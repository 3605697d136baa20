import ErrorOutlinedIcon from '@mui/icons-material/ErrorOutlined';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

interface Props {
  open: boolean;
  message: string;
  onClose: () => void;
  onTryAgain: () => void;
  /** Runs once the dialog has left the screen (focus moves back to the form then). */
  onExited?: () => void;
}

/** docs/product.md §2.2: the "Redemption Failed" modal with Close and Try Again. */
export function RedemptionFailedDialog({ open, message, onClose, onTryAgain, onExited }: Props) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      disableRestoreFocus
      aria-labelledby="redemption-failed-title"
      aria-describedby="redemption-failed-message"
      slotProps={{ transition: { onExited } }}
      maxWidth="xs"
      fullWidth
    >
      <DialogTitle
        id="redemption-failed-title"
        sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'error.main' }}
      >
        <ErrorOutlinedIcon aria-hidden />
        Redemption Failed
      </DialogTitle>
      <DialogContent>
        <DialogContentText id="redemption-failed-message">{message}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button onClick={onTryAgain} variant="contained" autoFocus>
          Try Again
        </Button>
      </DialogActions>
    </Dialog>
  );
}
