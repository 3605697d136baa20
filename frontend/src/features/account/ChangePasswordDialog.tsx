import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import { useState, type FormEvent } from 'react';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { PasswordField } from './PasswordField';
import { validateChangePassword, type ChangePasswordErrors } from './passwordStrength';
import { PasswordStrengthMeter } from './PasswordStrengthMeter';
import { useAuthControllerChangePasswordMutation } from '../../api';

const EMPTY = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** docs/product.md §3.14 Change Password modal: current, new and confirm with show/hide toggles and a strength meter. */
export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [values, setValues] = useState(EMPTY);
  const [errors, setErrors] = useState<ChangePasswordErrors>({});
  const [changePassword, { isLoading }] = useAuthControllerChangePasswordMutation();

  const close = () => {
    setValues(EMPTY);
    setErrors({});
    onClose();
  };
  const set = (field: keyof typeof EMPTY) => (e: { target: { value: string } }) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    setErrors((err) => ({ ...err, [field]: undefined }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateChangePassword(values);
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    // docs/product.md §8.3: the body is exactly {currentPassword, newPassword}; the confirmation is checked here.
    const result = await changePassword({ currentPassword: values.currentPassword, newPassword: values.newPassword });
    if ('error' in result) {
      toast({
        title: 'Password Change Failed',
        description: bodyMessage(result.error) ?? 'Failed to change password. Please try again.',
        variant: 'destructive',
      });
      return;
    }
    toast({
      title: 'Password Changed',
      description: 'Your password has been changed successfully.',
      variant: 'success',
    });
    close();
  };

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="xs" aria-labelledby="change-password-title">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle id="change-password-title">Change Password</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <PasswordField
              label="Current Password"
              value={values.currentPassword}
              onChange={set('currentPassword')}
              autoComplete="current-password"
              error={!!errors.currentPassword}
              helperText={errors.currentPassword}
              autoFocus
            />
            <PasswordField
              label="New Password"
              value={values.newPassword}
              onChange={set('newPassword')}
              autoComplete="new-password"
              error={!!errors.newPassword}
              helperText={errors.newPassword}
            />
            <PasswordStrengthMeter password={values.newPassword} />
            <PasswordField
              label="Confirm New Password"
              value={values.confirmPassword}
              onChange={set('confirmPassword')}
              autoComplete="new-password"
              error={!!errors.confirmPassword}
              helperText={errors.confirmPassword}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={close}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={isLoading}>
            {isLoading ? 'Changing...' : 'Change Password'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
