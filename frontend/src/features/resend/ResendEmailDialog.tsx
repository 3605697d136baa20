import MarkEmailReadOutlined from '@mui/icons-material/MarkEmailReadOutlined';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent } from 'react';
import { bodyMessage } from '../../utils/httpError';
import { normaliseVoucherInput, validateField } from '../redeem/redeemRules';
import { useRedemptionControllerResendOrderEmailMutation } from '../../api';

export const RESEND_TITLE = "Didn't get the e-mail?";
const FAILED = 'The request could not be sent. Please try again in a minute or contact support.';

type Field = 'voucherCode' | 'email';

/**
 * Asks the server to send the order e-mail again (`POST /api/resend-order-email`). Both fields follow the redeem
 * form's rules and messages (docs/product.md §6.1); the server's answer is the same whatever was entered, and is shown as is.
 */
export function ResendEmailDialog({
  open,
  email = '',
  voucherCode = '',
  onClose,
}: {
  open: boolean;
  email?: string;
  /** The success pages fill in the customer's own code (docs/product.md §19.4). */
  voucherCode?: string;
  onClose: () => void;
}) {
  const [values, setValues] = useState<Record<Field, string>>({ voucherCode, email });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [answer, setAnswer] = useState<{ severity: 'success' | 'error'; text: string } | null>(null);
  const [send, { isLoading }] = useRedemptionControllerResendOrderEmailMutation();

  const change = (field: Field, raw: string) => {
    const value = field === 'voucherCode' ? normaliseVoucherInput(raw) : raw;
    setValues((v) => ({ ...v, [field]: value }));
    if (errors[field]) setErrors((e) => ({ ...e, [field]: validateField(field, value) }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = {
      voucherCode: validateField('voucherCode', values.voucherCode),
      email: validateField('email', values.email),
    };
    setErrors(found);
    if (found.voucherCode || found.email) return;
    const result = await send({
      voucherCode: values.voucherCode.trim().toUpperCase(),
      email: values.email.trim().toLowerCase(),
    });
    if ('error' in result) setAnswer({ severity: 'error', text: bodyMessage(result.error) ?? FAILED });
    else setAnswer({ severity: 'success', text: result.data.message });
  };

  const field = (name: Field, label: string, extra: { type?: string; autoComplete?: string }) => (
    <TextField
      id={`resend-${name}`}
      label={label}
      required
      value={values[name]}
      onChange={(e) => change(name, e.target.value)}
      onBlur={() => setErrors((e) => ({ ...e, [name]: validateField(name, values[name]) }))}
      error={!!errors[name]}
      helperText={errors[name] ?? ' '}
      type={extra.type ?? 'text'}
      autoComplete={extra.autoComplete}
      slotProps={{ htmlInput: { 'aria-invalid': !!errors[name] } }}
    />
  );

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="xs"
      aria-labelledby="resend-title"
      slotProps={{ transition: { onExited: () => setAnswer(null) } }}
    >
      <form noValidate onSubmit={(event) => void submit(event)}>
        <DialogTitle id="resend-title">{RESEND_TITLE}</DialogTitle>
        <DialogContent>
          <Stack spacing={1}>
            <DialogContentText variant="body2">
              Enter your voucher code and the e-mail address you redeemed it with, and we will send your order e-mail
              again. Please also check your spam or junk folder.
            </DialogContentText>
            {field('voucherCode', 'Voucher Code', { autoComplete: 'off' })}
            {field('email', 'Email Address', { type: 'email', autoComplete: 'email' })}
            {answer && (
              <Alert
                severity={answer.severity}
                icon={answer.severity === 'success' ? <MarkEmailReadOutlined /> : undefined}
                role="status"
              >
                {answer.text}
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Close</Button>
          <Button
            type="submit"
            variant="contained"
            disabled={isLoading}
            startIcon={isLoading ? <CircularProgress size={16} color="inherit" aria-hidden /> : undefined}
          >
            {isLoading ? 'Sending...' : 'Send Again'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

export default ResendEmailDialog;
