import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import CircularProgress from '@mui/material/CircularProgress';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { toast } from '../../components/toast';
import { RedemptionFailedDialog } from './RedemptionFailedDialog';
import { successPath, useRedeemVoucherMutation } from './redeemApi';
import { describeRedeemFailure, TOKEN_MISSING_MESSAGE } from './redeemErrors';
import {
  FIELD_ORDER,
  normaliseVoucherInput,
  PHONE_OK_LENGTH,
  toRedeemRequest,
  validateField,
  validateForm,
  VOUCHER_OK_LENGTH,
  type RedeemErrors,
  type RedeemField,
  type RedeemFormValues,
} from './redeemRules';

export const SUCCESS_NOTICE = 'Voucher successfully redeemed! Check your email for the download link and product license.';

const EMPTY: RedeemFormValues = { firstName: '', lastName: '', email: '', phone: '', voucherCode: '', acceptPrivacyPolicy: false };

type TextFieldName = Exclude<RedeemField, 'acceptPrivacyPolicy'>;

function SuccessMark({ label }: { label: string }) {
  return (
    <InputAdornment position="end">
      <CheckCircleIcon color="success" titleAccess={label} />
    </InputAdornment>
  );
}

/** SPEC §2/§4/§5: the redemption form, validated as typed with the server's rules and messages. */
export function RedeemForm() {
  const navigate = useNavigate();
  const [redeem, { isLoading: submitting }] = useRedeemVoucherMutation();
  const [values, setValues] = useState<RedeemFormValues>(EMPTY);
  const [errors, setErrors] = useState<RedeemErrors>({});
  const [touched, setTouched] = useState<Partial<Record<RedeemField, boolean>>>({});
  // Honeypots (left empty by people) and the page-load timestamp the server uses against bots.
  const [honeypot, setHoneypot] = useState({ website: '', company_website: '' });
  const [submissionTime] = useState(() => String(Date.now()));
  const [failure, setFailure] = useState<string | null>(null);
  const retry = useRef(false);
  const inputs = useRef<Partial<Record<RedeemField, HTMLInputElement | null>>>({});
  const submitButton = useRef<HTMLButtonElement>(null);

  const setField = <F extends RedeemField>(field: F, value: RedeemFormValues[F]) => {
    setValues((v) => ({ ...v, [field]: value }));
    if (touched[field] || (field !== 'acceptPrivacyPolicy' && String(value).length > 0)) {
      setErrors((e) => ({ ...e, [field]: validateField(field, value) }));
    }
  };

  const onText = (field: TextFieldName) => (event: ChangeEvent<HTMLInputElement>) => {
    const raw = event.target.value;
    setField(field, field === 'voucherCode' ? normaliseVoucherInput(raw) : raw);
  };

  const onBlur = (field: TextFieldName) => () => {
    setTouched((t) => ({ ...t, [field]: true }));
    setErrors((e) => ({ ...e, [field]: validateField(field, values[field]) }));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const found = validateForm(values);
    setErrors(found);
    setTouched({ firstName: true, lastName: true, email: true, phone: true, voucherCode: true, acceptPrivacyPolicy: true });
    const first = FIELD_ORDER.find((f) => found[f]);
    if (first) {
      inputs.current[first]?.focus();
      return;
    }
    const result = await redeem(toRedeemRequest(values, { submissionTime, ...honeypot }));
    if ('error' in result) {
      const outcome = describeRedeemFailure(result.error);
      if (outcome.kind === 'geo-blocked') navigate('/geo-blocked');
      else setFailure(outcome.message);
      return;
    }
    const { productName, successToken } = result.data;
    if (!successToken) {
      setFailure(TOKEN_MISSING_MESSAGE);
      return;
    }
    toast({ title: 'Success!', description: SUCCESS_NOTICE, variant: 'success' });
    navigate(successPath(productName, successToken));
  };

  const closeDialog = () => setFailure(null);
  const tryAgain = () => {
    retry.current = true;
    setValues((v) => ({ ...v, voucherCode: '' }));
    setErrors((e) => ({ ...e, voucherCode: undefined }));
    setTouched((t) => ({ ...t, voucherCode: false }));
    setFailure(null);
  };
  const afterDialog = () => {
    if (retry.current) inputs.current.voucherCode?.focus();
    else submitButton.current?.focus();
    retry.current = false;
  };

  const text = (field: TextFieldName, label: string, extra: { hint?: string; type?: string; autoComplete?: string; ok?: boolean; okLabel?: string }) => {
    const error = errors[field];
    return (
      <TextField
        id={`redeem-${field}`}
        name={field}
        label={label}
        required
        value={values[field]}
        onChange={onText(field)}
        onBlur={onBlur(field)}
        error={!!error}
        helperText={error ?? extra.hint ?? ' '}
        type={extra.type ?? 'text'}
        autoComplete={extra.autoComplete}
        inputRef={(el: HTMLInputElement | null) => {
          inputs.current[field] = el;
        }}
        slotProps={{
          htmlInput: { 'aria-invalid': !!error },
          formHelperText: { 'aria-live': 'polite' } as object,
          input: { endAdornment: !error && extra.ok ? <SuccessMark label={extra.okLabel ?? 'Looks good'} /> : undefined },
        }}
      />
    );
  };

  const voucher = values.voucherCode.trim();
  const phone = values.phone.trim();
  return (
    <Box component="form" noValidate onSubmit={onSubmit} aria-label="Redeem your voucher">
      <Stack spacing={1}>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          {text('firstName', 'First Name', { autoComplete: 'given-name' })}
          {text('lastName', 'Last Name', { autoComplete: 'family-name' })}
        </Stack>
        {text('email', 'Email Address', {
          type: 'email',
          autoComplete: 'email',
          hint: 'Your licence key and download link will be sent to this address',
        })}
        {text('phone', 'Phone Number', {
          type: 'tel',
          autoComplete: 'tel',
          hint: 'Include your country code, e.g. +1 302 555 0100',
          ok: phone.length >= PHONE_OK_LENGTH,
          okLabel: 'Phone number looks complete',
        })}
        {text('voucherCode', 'Voucher Code', {
          autoComplete: 'off',
          hint: 'Letters, digits, hyphens and underscores',
          ok: voucher.length >= VOUCHER_OK_LENGTH,
          okLabel: 'Voucher code looks complete',
        })}

        {/* Honeypots: invisible to people and to assistive technology; bots fill them in. */}
        <Box aria-hidden sx={{ position: 'absolute', left: '-10000px', top: 'auto', width: '1px', height: '1px', overflow: 'hidden' }}>
          <label htmlFor="redeem-website">Website</label>
          <input
            id="redeem-website"
            name="website"
            type="text"
            tabIndex={-1}
            autoComplete="off"
            value={honeypot.website}
            onChange={(e) => setHoneypot((h) => ({ ...h, website: e.target.value }))}
          />
          <label htmlFor="redeem-company-website">Company website</label>
          <input
            id="redeem-company-website"
            name="company_website"
            type="text"
            tabIndex={-1}
            autoComplete="off"
            value={honeypot.company_website}
            onChange={(e) => setHoneypot((h) => ({ ...h, company_website: e.target.value }))}
          />
        </Box>

        <Box>
          <FormControlLabel
            control={
              <Checkbox
                id="redeem-acceptPrivacyPolicy"
                name="acceptPrivacyPolicy"
                checked={values.acceptPrivacyPolicy}
                onChange={(e) => setField('acceptPrivacyPolicy', e.target.checked)}
                slotProps={{
                  input: {
                    ref: (el: HTMLInputElement | null) => {
                      inputs.current.acceptPrivacyPolicy = el;
                    },
                    'aria-describedby': errors.acceptPrivacyPolicy ? 'redeem-accept-error' : undefined,
                  },
                }}
              />
            }
            label={
              <>
                I have read and accept the{' '}
                <Link href="/privacy-policy" target="_blank" rel="noopener noreferrer">
                  Privacy Policy
                </Link>{' '}
                and the{' '}
                <Link href="/terms-conditions" target="_blank" rel="noopener noreferrer">
                  Terms & Conditions
                </Link>
              </>
            }
          />
          {errors.acceptPrivacyPolicy && (
            <FormHelperText id="redeem-accept-error" error role="alert">
              {errors.acceptPrivacyPolicy}
            </FormHelperText>
          )}
        </Box>

        <Button
          ref={submitButton}
          type="submit"
          variant="contained"
          size="large"
          disabled={!values.acceptPrivacyPolicy || submitting}
          startIcon={submitting ? <CircularProgress size={18} color="inherit" aria-hidden /> : undefined}
          sx={{ py: 1.5 }}
        >
          {submitting ? 'Processing Redemption...' : 'Redeem Voucher'}
        </Button>
      </Stack>

      <RedemptionFailedDialog open={failure !== null} message={failure ?? ''} onClose={closeDialog} onTryAgain={tryAgain} onExited={afterDialog} />
    </Box>
  );
}
