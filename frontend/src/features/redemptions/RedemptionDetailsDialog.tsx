import CloseIcon from '@mui/icons-material/Close';
import EditIcon from '@mui/icons-material/Edit';
import SendIcon from '@mui/icons-material/Send';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState, type ReactNode } from 'react';
import { StatusChip } from '../../components/status/StatusChip';
import { toast } from '../../components/toast';
import { usePermissions } from '../auth/usePermissions';
import { EmailStatusChip } from './EmailStatusChip';
import { errorText } from './errors';
import { erasedOn, formatDateTime } from './formatDate';
import { RedemptionHistory } from './RedemptionHistory';
import {
  displayLicenseKey,
  invalidAssignment,
  isMacProduct,
  voucherCodeOf,
  type AdminRedemption,
} from './redemptionsApi';
import {
  useRedemptionAdminControllerAssignMutation,
  useRedemptionAdminControllerFindOneQuery,
  useRedemptionAdminControllerResendMutation,
} from '../../api';

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `details-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <Box component="section" aria-labelledby={id} sx={{ py: 1.5 }}>
      <Typography id={id} variant="h3" sx={{ fontSize: '1rem', mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '160px 1fr' }, gap: 1, py: 0.25 }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {label}
      </Typography>
      <Typography variant="body2" component="div" sx={{ wordBreak: 'break-all' }}>
        {children}
      </Typography>
    </Box>
  );
}

const NOT_PROVIDED = 'Not provided';

/**
 * docs/product.md §6.3 manual assignment: both fields non-empty after trim, sent trimmed; Save disabled while either is empty.
 * Blanks alone pass the button and are refused with docs/product.md §9.3's "Invalid input" toast.
 */
function LicenseEditor({ redemption, onDone }: { redemption: AdminRedemption; onDone: () => void }) {
  const [licenseKey, setLicenseKey] = useState(displayLicenseKey(redemption.assignedLicenseKey?.licenseKey));
  const [downloadLink, setDownloadLink] = useState(redemption.assignedLicenseKey?.downloadLink ?? '');
  const [touched, setTouched] = useState({ licenseKey: false, downloadLink: false });
  const [assign, { isLoading }] = useRedemptionAdminControllerAssignMutation();
  const key = licenseKey.trim();
  const link = downloadLink.trim();
  const keyError = touched.licenseKey && !key ? 'License key is required.' : undefined;
  const linkError = touched.downloadLink && !link ? 'Download link is required.' : undefined;

  async function save() {
    const invalid = invalidAssignment(key, link);
    if (invalid) {
      setTouched({ licenseKey: true, downloadLink: true });
      toast({ title: 'Invalid input', description: invalid, variant: 'destructive' });
      return;
    }
    try {
      await assign({ id: redemption.id, assignLicenseDto: { licenseKey: key, downloadLink: link } }).unwrap();
      toast({ title: 'License assigned successfully', variant: 'success' });
      onDone();
    } catch (err) {
      toast({
        title: 'Failed to assign license',
        description: errorText(err, 'There was an error assigning the license key.'),
        variant: 'destructive',
      });
    }
  }

  return (
    <Stack
      component="form"
      noValidate
      spacing={2}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextField
        label="License Key"
        value={licenseKey}
        onChange={(e) => {
          setLicenseKey(e.target.value);
          setTouched((t) => ({ ...t, licenseKey: true }));
        }}
        onBlur={() => setTouched((t) => ({ ...t, licenseKey: true }))}
        error={!!keyError}
        helperText={keyError}
        required
        size="small"
        autoFocus
      />
      <TextField
        label="Download Link"
        type="url"
        value={downloadLink}
        onChange={(e) => {
          setDownloadLink(e.target.value);
          setTouched((t) => ({ ...t, downloadLink: true }));
        }}
        onBlur={() => setTouched((t) => ({ ...t, downloadLink: true }))}
        error={!!linkError}
        helperText={linkError}
        required
        size="small"
        placeholder="https://"
      />
      <Stack direction="row" spacing={1}>
        <Button type="submit" variant="contained" disabled={!licenseKey || !downloadLink || isLoading}>
          {isLoading ? 'Saving...' : 'Save'}
        </Button>
        <Button onClick={onDone} disabled={isLoading}>
          Cancel
        </Button>
      </Stack>
    </Stack>
  );
}

/** docs/product.md §3.7 redemption details modal. */
export function RedemptionDetailsDialog({
  redemption: initial,
  onClose,
}: {
  redemption: AdminRedemption;
  onClose: () => void;
}) {
  const { data } = useRedemptionAdminControllerFindOneQuery(initial.id);
  const redemption = data ?? initial;
  const { can } = usePermissions();
  const [editing, setEditing] = useState(false);
  const [resend, { isLoading: resending }] = useRedemptionAdminControllerResendMutation();
  const mac = isMacProduct(redemption.product?.name);
  const assigned = redemption.assignedLicenseKey;
  const { customer } = redemption;

  async function resendEmail() {
    try {
      await resend(redemption.id).unwrap();
      toast({ title: 'Email sent successfully', variant: 'success' });
    } catch (err) {
      // docs/product.md §9.3: the modal's wording (the dashboard row says "Failed to Send Email").
      toast({
        title: 'Failed to send email',
        description: errorText(err, 'There was an error sending the email.'),
        variant: 'destructive',
      });
    }
  }

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" aria-labelledby="redemption-details-title">
      <DialogTitle id="redemption-details-title" sx={{ pr: 6 }}>
        Redemption Details
        <IconButton aria-label="Close" onClick={onClose} sx={{ position: 'absolute', right: 8, top: 8 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      <DialogContent dividers>
        <Section title="Customer Information">
          {redemption.erasedAt ? (
            <Typography variant="body2" sx={{ fontStyle: 'italic' }}>
              {erasedOn(redemption.erasedAt)}: the customer deleted their personal data in the licence centre. The
              voucher, product, dates and licence stay.
            </Typography>
          ) : (
            <>
              <Field label="Name">{`${customer.firstName} ${customer.lastName}`}</Field>
              <Field label="Email">{customer.email}</Field>
              <Field label="Phone">{customer.phone || NOT_PROVIDED}</Field>
              <Field label="Country">{customer.country || NOT_PROVIDED}</Field>
              <Field label="Zip Code">{customer.zipCode || NOT_PROVIDED}</Field>
            </>
          )}
        </Section>
        <Divider />
        <Section title="Product Information">
          <Field label="Product">{redemption.product?.name}</Field>
          <Field label="Voucher Code">
            <Box component="span" sx={{ fontFamily: 'monospace' }}>
              {voucherCodeOf(redemption)}
            </Box>
          </Field>
          <Field label="Redeemed At">{formatDateTime(redemption.redeemedAt)}</Field>
        </Section>
        <Divider />
        {mac ? (
          <Section title="License Activation">
            <Alert severity="info" sx={{ mb: 1 }}>
              Mac products are activated automatically by the License Activation package sent to the customer. No
              license key needs to be entered.
            </Alert>
            {/* docs/product.md §12.7: the licence package link the customer's order e-mail gives. */}
            <Field label="Licence package">
              {redemption.activationLink ? (
                <Link
                  href={redemption.activationLink}
                  target="_blank"
                  rel="noopener noreferrer"
                  sx={{ wordBreak: 'break-all' }}
                  data-testid="details-activation-link"
                >
                  {redemption.activationLink}
                </Link>
              ) : redemption.isManualProcessing ? (
                'Waiting for a key: the licence package is its download link.'
              ) : (
                'No licence package link yet: set it in the product card (Package Links).'
              )}
            </Field>
          </Section>
        ) : (
          <Section title="License Key">
            {editing ? (
              <LicenseEditor redemption={redemption} onDone={() => setEditing(false)} />
            ) : (
              <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                {assigned ? (
                  <Typography
                    data-testid="details-license-key"
                    sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
                  >
                    {displayLicenseKey(assigned.licenseKey)}
                  </Typography>
                ) : (
                  <Typography sx={{ color: 'text.secondary' }}>
                    {redemption.heldForReview
                      ? 'Held for review: no key until it is approved in the Review tab.'
                      : redemption.isManualProcessing
                        ? 'No license key assigned yet (manual processing).'
                        : 'No license key assigned.'}
                  </Typography>
                )}
                {can('licenses.assign') && !redemption.heldForReview && (
                  <Button size="small" variant="outlined" startIcon={<EditIcon />} onClick={() => setEditing(true)}>
                    {assigned ? 'Edit License' : 'Assign License'}
                  </Button>
                )}
              </Stack>
            )}
          </Section>
        )}
        <Divider />
        <Section title="Download Link">
          {assigned?.downloadLink ? (
            <Link
              href={assigned.downloadLink}
              target="_blank"
              rel="noopener noreferrer"
              sx={{ wordBreak: 'break-all' }}
            >
              {assigned.downloadLink}
            </Link>
          ) : (
            <Typography variant="body2" sx={{ color: 'text.secondary' }}>
              {mac ? 'Sent to the customer with the installation packages.' : 'Not available'}
            </Typography>
          )}
        </Section>
        <Divider />
        <Section title="Redemption Status">
          <Field label="Email Status">
            <EmailStatusChip status={redemption.emailStatus} />
          </Field>
          <Field label="Exported">
            {redemption.exported ? `Yes (${formatDateTime(redemption.exportedAt) || 'Not available'})` : 'No'}
          </Field>
          {redemption.refundedAt && (
            <Field label="Refunded">
              <StatusChip color="warning" variant="outlined" label="Refunded" /> {formatDateTime(redemption.refundedAt)}
              : the voucher was refunded after redemption; the customer keeps the licence.
            </Field>
          )}
          {can('emails.resend') && (
            <Button
              sx={{ mt: 1 }}
              variant="contained"
              startIcon={<SendIcon />}
              onClick={() => void resendEmail()}
              disabled={resending}
            >
              {resending ? 'Sending...' : 'Resend Email'}
            </Button>
          )}
        </Section>
        <Divider />
        <Section title="History">
          <RedemptionHistory redemptionId={redemption.id} />
        </Section>
      </DialogContent>
    </Dialog>
  );
}
