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
import { lazy, Suspense, useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { OutlinedTextField } from '../../components/form/OutlinedTextField';
import { toast } from '../../components/toast';
import { successPath } from './redeemApi';
import { prerenderedInput } from '../../app/prerenderedInput';
import { describeRedeemFailure, TOKEN_MISSING_MESSAGE } from './redeemErrors';
import { forgetRedeemIdempotencyKey, redeemIdempotencyKey } from './idempotencyKey';
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
import { useRedemptionControllerRedeemMutation } from '../../api';

// Loaded with the first failure: most visitors never see it.
const RedemptionFailedDialog = lazy(() =>
  import('./RedemptionFailedDialog').then((m) => ({ default: m.RedemptionFailedDialog })),
);

export const SUCCESS_NOTICE =
  'Voucher successfully redeemed! Check your email for the download link and product license.';

const EMPTY: RedeemFormValues = {
  firstName: '',
  lastName: '',
  email: '',
  phone: '',
  voucherCode: '',
  acceptPrivacyPolicy: false,
};

type TextFieldName = Exclude<RedeemField, 'acceptPrivacyPolicy'>;

/**
 * `/` is prerendered (frontend/build/page-files.mts): the form is on screen, and can be typed into, before
 * the app has loaded. When the app takes the page over it starts from what is already in the fields, so
 * nothing typed early is lost (empty when rendered anywhere else: on the server, or without a prerender).
 */
function typedBeforeLoad(): Partial<RedeemFormValues> {
  const typed: Partial<RedeemFormValues> = {};
  for (const field of FIELD_ORDER) {
    const element = prerenderedInput(`redeem-${field}`);
    if (!element) continue;
    if (field === 'acceptPrivacyPolicy') {
      if (element.checked) typed.acceptPrivacyPolicy = true;
    } else if (element.value) {
      typed[field] = field === 'voucherCode' ? normaliseVoucherInput(element.value) : element.value;
    }
  }
  return typed;
}

function SuccessMark({ label }: { label: string }) {
  return (
    <InputAdornment position="end">
      <CheckCircleIcon color="success" titleAccess={label} />
    </InputAdornment>
  );
}

/** docs/product.md §2.2/§5.1/§6.1: the redemption form, validated as typed with the server's rules and messages. */
export function RedeemForm() {
  const navigate = useNavigate();
  const [redeem, { isLoading: submitting }] = useRedemptionControllerRedeemMutation();
  const [values, setValues] = useState<RedeemFormValues>(EMPTY);
  // Read while rendering, before the fields are hydrated (which empties them); applied once they are, so
  // the update also reaches the attributes hydration keeps from the prerender (the button's `disabled`).
  const [early] = useState(typedBeforeLoad);
  const [errors, setErrors] = useState<RedeemErrors>({});
  const [touched, setTouched] = useState<Partial<Record<RedeemField, boolean>>>({});
  // `data-ready` on the form says the app has taken it over (what automated checks wait for before typing).
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const typed = Object.keys(early) as RedeemField[];
    if (typed.length) {
      // What was typed early is judged at once, as it would have been when its field was left.
      setValues((v) => ({ ...v, ...early }));
      setTouched((t) => ({ ...t, ...Object.fromEntries(typed.map((f) => [f, true])) }));
      setErrors((e) => ({ ...e, ...Object.fromEntries(typed.map((f) => [f, validateField(f, early[f]!)])) }));
    }
    setReady(true);
  }, [early]);
  // Honeypots (left empty by people) and the page-load timestamp the server uses against bots.
  const [honeypot, setHoneypot] = useState({ website: '', company_website: '' });
  const [submissionTime] = useState(() => String(Date.now()));
  const [failure, setFailure] = useState<string | null>(null);
  // Stays mounted after the first failure, so the dialog can play its closing transition.
  const [dialogMounted, setDialogMounted] = useState(false);
  const fail = (message: string) => {
    setFailure(message);
    setDialogMounted(true);
  };
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
    setTouched({
      firstName: true,
      lastName: true,
      email: true,
      phone: true,
      voucherCode: true,
      acceptPrivacyPolicy: true,
    });
    const first = FIELD_ORDER.find((f) => found[f]);
    if (first) {
      inputs.current[first]?.focus();
      return;
    }
    // Made with the first submit and kept in the tab until the success page opens: a retry of this form (a double
    // click, a lost answer, a reload) is answered with the same redemption.
    const body = toRedeemRequest(values, { submissionTime, ...honeypot });
    const result = await redeem({ 'Idempotency-Key': redeemIdempotencyKey(), redeemVoucherDto: body });
    if ('error' in result) {
      const outcome = describeRedeemFailure(result.error);
      if (outcome.kind === 'geo-blocked') void navigate('/geo-blocked');
      else fail(outcome.message);
      return;
    }
    const { productName, successToken } = result.data;
    if (!successToken) {
      fail(TOKEN_MISSING_MESSAGE);
      return;
    }
    forgetRedeemIdempotencyKey();
    toast({ title: 'Success!', description: SUCCESS_NOTICE, variant: 'success' });
    void navigate(successPath(productName, successToken));
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

  const text = (
    field: TextFieldName,
    label: string,
    extra: { hint?: string; type?: string; autoComplete?: string; ok?: boolean; okLabel?: string },
  ) => {
    const error = errors[field];
    return (
      <OutlinedTextField
        id={`redeem-${field}`}
        name={field}
        label={label}
        required
        value={values[field]}
        onChange={onText(field)}
        onBlur={onBlur(field)}
        error={!!error}
        helperText={error ?? extra.hint ?? ' '}
        type={extra.type}
        autoComplete={extra.autoComplete}
        inputRef={(el: HTMLInputElement | null) => {
          inputs.current[field] = el;
        }}
        endAdornment={!error && extra.ok ? <SuccessMark label={extra.okLabel ?? 'Looks good'} /> : undefined}
      />
    );
  };

  const voucher = values.voucherCode.trim();
  const phone = values.phone.trim();
  return (
    <Box
      component="form"
      noValidate
      onSubmit={(event) => void onSubmit(event)}
      aria-label="Redeem your voucher"
      data-ready={ready || undefined}
    >
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
        <Box
          aria-hidden
          sx={{ position: 'absolute', left: '-10000px', top: 'auto', width: '1px', height: '1px', overflow: 'hidden' }}
        >
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

      {dialogMounted && (
        <Suspense fallback={null}>
          <RedemptionFailedDialog
            open={failure !== null}
            message={failure ?? ''}
            onClose={closeDialog}
            onTryAgain={tryAgain}
            onExited={afterDialog}
          />
        </Suspense>
      )}
    </Box>
  );
}
