import DownloadIcon from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { CopyButton } from '../../components/copy/CopyButton';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { bodyMessage } from '../../utils/httpError';
import { MAC_PACKAGES, type MacPackage } from '../success/macPackages';
import { type CustomerLicence } from './licenceCentreApi';
import { useCustomerCentreControllerResendMutation } from '../../api';

/** docs/product.md §10.7: a product whose name contains "mac" is a Mac product (delivered as the package set, never by key). */
const isMac = (productName: string) => /mac/i.test(productName);

/**
 * docs/product.md §12.7: the Mac packages' links of this licence, as its order e-mail gives them: the Removal Tool
 * and the licence package from the server (the customer's own), the installer the vendor's.
 */
function macPackageHref(pkg: MacPackage, licence: CustomerLicence): string | null | undefined {
  if (pkg.id === 'removal-tool') return licence.removalToolLink ?? pkg.href;
  if (pkg.id === 'activation') return licence.activationLink;
  return pkg.href;
}

const dateOf = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

/** One licence: product, code and date; the key with a copy button; the downloads; "Send the e-mail again". */
export function LicenceCard({ licence, onExpired }: { licence: CustomerLicence; onExpired: () => void }) {
  const { copy, copied } = useCopyToClipboard();
  const [resend, { isLoading }] = useCustomerCentreControllerResendMutation();
  const [answer, setAnswer] = useState<{ severity: 'success' | 'error'; text: string } | null>(null);
  const titleId = `licence-${licence.redemptionId}`;
  const mac = isMac(licence.productName);

  const sendAgain = async () => {
    const result = await resend(licence.redemptionId);
    if ('error' in result) {
      if (result.error && 'status' in result.error && result.error.status === 401) return onExpired();
      setAnswer({
        severity: 'error',
        text: bodyMessage(result.error) ?? 'The e-mail could not be requested. Please try again later.',
      });
    } else setAnswer({ severity: 'success', text: result.data.message });
  };

  return (
    <Paper component="li" variant="outlined" aria-labelledby={titleId} sx={{ p: 3 }}>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ justifyContent: 'space-between', mb: 1 }}>
        <Typography id={titleId} variant="h3">
          {licence.productName}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          Redeemed on {dateOf(licence.redeemedAt)}
        </Typography>
      </Stack>
      <Typography variant="body2" sx={{ mb: 2 }}>
        Voucher code:{' '}
        <Box component="span" sx={{ fontFamily: 'monospace' }}>
          {licence.voucherCode}
        </Box>
      </Typography>

      {licence.refundedAt ? (
        <Alert severity="warning">
          Refunded on {dateOf(licence.refundedAt)}: this licence is no longer available here. Please contact support
          with any questions.
        </Alert>
      ) : licence.heldForReview ? (
        <Alert severity="info">
          Held for review: your licence will be sent to you by e-mail once it is approved, usually within 2-3 hours.
        </Alert>
      ) : licence.isManualProcessing ? (
        <Alert severity="info">
          Processing your licence: it will be sent to you by e-mail as soon as it is ready, usually within 2-3 hours.
        </Alert>
      ) : (
        <Stack spacing={2}>
          {licence.licenseKey && (
            <Box>
              <Typography variant="body2" sx={{ color: 'text.secondary' }} id={`${titleId}-key`}>
                {mac ? 'Product key' : 'License key'}
              </Typography>
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                <Box
                  component="code"
                  aria-labelledby={`${titleId}-key`}
                  sx={{ fontSize: '1.05rem', fontWeight: 600, overflowWrap: 'anywhere' }}
                >
                  {licence.licenseKey}
                </Box>
                <CopyButton
                  copied={copied}
                  label={`Copy the key of ${licence.productName}`}
                  copiedLabel="Key copied"
                  onClick={() => void copy(licence.licenseKey!, { label: 'License key' })}
                />
              </Stack>
            </Box>
          )}
          {mac ? (
            <Box component="ol" aria-label={`Installation packages of ${licence.productName}`} sx={{ m: 0, pl: 3 }}>
              {MAC_PACKAGES.map((pkg) => {
                const href = macPackageHref(pkg, licence);
                return (
                  <Typography component="li" variant="body2" key={pkg.name} sx={{ mb: 0.5 }}>
                    {href ? (
                      <Link href={href} target="_blank" rel="noopener noreferrer" sx={{ overflowWrap: 'anywhere' }}>
                        {pkg.name}
                      </Link>
                    ) : (
                      pkg.name
                    )}{' '}
                    <Chip size="small" label={pkg.size} sx={{ ml: 0.5 }} />
                    {!href && pkg.note && (
                      <Box component="span" sx={{ color: 'text.secondary' }}>
                        {' '}
                        (Not available yet: please contact support)
                      </Box>
                    )}
                  </Typography>
                );
              })}
            </Box>
          ) : (
            licence.downloadLink && (
              <Box>
                <Button
                  variant="outlined"
                  startIcon={<DownloadIcon />}
                  href={licence.downloadLink}
                  target="_blank"
                  rel="noopener noreferrer"
                  aria-label={`Download ${licence.productName}`}
                >
                  Download
                </Button>
              </Box>
            )
          )}
          <Box>
            <Button size="small" onClick={() => void sendAgain()} disabled={isLoading}>
              Send the order e-mail again
            </Button>
          </Box>
        </Stack>
      )}
      {answer && (
        <Alert severity={answer.severity} sx={{ mt: 2 }} role="status">
          {answer.text}
        </Alert>
      )}
    </Paper>
  );
}
