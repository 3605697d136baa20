import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { useRedemptionMaintenanceControllerCleanupMutation } from '../../api';

/** The text to type before Clean System runs. */
export const CLEAN_CONFIRMATION = 'CLEAN SYSTEM';

/** docs/product.md §6.5: a danger confirmation that every voucher code, customer, redemption and licence assignment is deleted permanently. */
export function CleanSystemDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const [clean, { isLoading }] = useRedemptionMaintenanceControllerCleanupMutation();
  const close = () => {
    setTyped('');
    onClose();
  };
  const confirm = async () => {
    const result = await clean();
    if ('error' in result) {
      toast({ title: 'Failed to clean system', description: bodyMessage(result.error), variant: 'destructive' });
      return;
    }
    const d = result.data.deleted;
    toast({
      title: 'System Cleaned',
      description: `${result.data.message}: ${d.voucherCodes} voucher codes, ${d.customers} customers, ${d.redemptions} redemptions and ${d.licenseAssignments} license assignments deleted.`,
      variant: 'success',
    });
    close();
  };
  return (
    <Dialog open={open} onClose={close} maxWidth="sm" fullWidth aria-labelledby="clean-title">
      <DialogTitle id="clean-title">Clean System</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Alert severity="error">
            This permanently deletes <strong>all voucher codes, customers, redemptions and license assignments</strong>.
            This action cannot be undone. License keys and products are kept.
          </Alert>
          <Typography variant="body2">
            Type <strong>{CLEAN_CONFIRMATION}</strong> to confirm.
          </Typography>
          <TextField
            label="Confirmation"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoFocus
            autoComplete="off"
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>Cancel</Button>
        <Button
          color="error"
          variant="contained"
          disabled={typed !== CLEAN_CONFIRMATION || isLoading}
          onClick={() => void confirm()}
        >
          {isLoading ? 'Cleaning...' : 'Clean System'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
