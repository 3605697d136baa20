import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import {
  type HeldRedemptionResponse,
  type RelatedRedemptionResponse,
  useRedemptionReviewControllerApproveMutation,
  useRedemptionReviewControllerEvidenceQuery,
  useRedemptionReviewControllerListQuery,
  useRedemptionReviewControllerRefuseMutation,
} from '../../api';

type BlockKind = 'email' | 'address' | 'phone';
const BLOCK_KINDS: Array<{ kind: BlockKind; label: string }> = [
  { kind: 'email', label: "Add the customer's e-mail to the blocklist" },
  { kind: 'address', label: "Add the customer's address (IP) to the blocklist" },
  { kind: 'phone', label: "Add the customer's phone to the blocklist" },
];

/** What a rule saw, in one line: `count: 4, threshold: 3`. */
function evidenceText(evidence: Record<string, unknown>): string {
  return Object.entries(evidence)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

function Related({ title, rows }: { title: string; rows: RelatedRedemptionResponse[] }) {
  return (
    <Box>
      <Typography variant="subtitle2">{`${title}: ${rows.length ? rows.length : 'none'}`}</Typography>
      {rows.map((r) => (
        <Typography key={r.redemptionId} variant="caption" component="div" sx={{ fontFamily: 'monospace' }}>
          {`${r.voucherCode} · ${r.productName} · ${new Date(r.redeemedAt).toLocaleString()}${r.held ? ' · held' : ''}`}
        </Typography>
      ))}
    </Box>
  );
}

/** The case's evidence, read when opened: the e-mail's, address's and phone's other redemptions, the countries. */
function Evidence({ id }: { id: string }) {
  const { data, isError } = useRedemptionReviewControllerEvidenceQuery(id);
  if (isError) return <Alert severity="warning">The evidence could not be read.</Alert>;
  if (!data) return null;
  return (
    <Stack spacing={1} sx={{ mt: 1 }} aria-label="Evidence">
      <Typography variant="body2">
        {`Address country: ${data.addressCountry ?? 'unknown'} · Phone country: ${data.phoneCountry ?? 'unknown'}`}
      </Typography>
      <Related title="Same e-mail" rows={data.sameEmail} />
      <Related title={`Same address (${data.ipAddress ?? 'none'}, 24 h)`} rows={data.sameAddress} />
      <Related title={`Same phone (${data.phone ?? 'none'}, 24 h)`} rows={data.samePhone} />
    </Stack>
  );
}

function Case({ item, onRefuse }: { item: HeldRedemptionResponse; onRefuse: () => void }) {
  const [approve, { isLoading }] = useRedemptionReviewControllerApproveMutation();
  const [showEvidence, setShowEvidence] = useState(false);
  const onApprove = async () => {
    const result = await approve(item.redemptionId);
    if ('error' in result) {
      toast({ title: 'Not approved', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'Redemption approved', description: item.voucherCode, variant: 'success' });
  };
  return (
    <Paper variant="outlined" component="article" aria-label={`Held redemption ${item.voucherCode}`} sx={{ p: 2 }}>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
        <Box>
          <Typography sx={{ fontFamily: 'monospace', fontWeight: 600 }}>{item.voucherCode}</Typography>
          <Typography variant="body2">{item.productName}</Typography>
          <Typography variant="body2" sx={{ color: 'text.secondary' }}>
            {item.customerEmail}
          </Typography>
          <Typography variant="caption" sx={{ color: 'text.secondary' }}>
            Held since {new Date(item.heldAt).toLocaleString()}
          </Typography>
        </Box>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
          <Button variant="contained" color="success" onClick={() => void onApprove()} disabled={isLoading}>
            Approve
          </Button>
          <Button variant="outlined" color="error" onClick={onRefuse}>
            Refuse
          </Button>
          <Button onClick={() => setShowEvidence((v) => !v)} aria-expanded={showEvidence}>
            Evidence
          </Button>
        </Stack>
      </Stack>
      <Stack spacing={0.5} sx={{ mt: 1 }}>
        {item.rules.map((r) => (
          <Stack key={r.rule} direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
            <Chip label={r.rule} size="small" color="warning" variant="outlined" />
            <Typography variant="caption" sx={{ fontFamily: 'monospace' }}>
              {evidenceText(r.evidence)}
            </Typography>
          </Stack>
        ))}
      </Stack>
      {showEvidence && <Evidence id={item.redemptionId} />}
    </Paper>
  );
}

/**
 * docs/product.md §25.5 the Review tab (`reviews.manage`): the redemptions risk rules held, oldest first, each with
 * its rules and what they saw; Approve gives a key and sends the order e-mail, Refuse refunds the code and e-mails the
 * customer, optionally blocklisting their e-mail, address or phone. Real-time `reviewUpdate` refreshes it.
 */
export function ReviewTab() {
  const { data, isLoading } = useRedemptionReviewControllerListQuery({ status: 'held', limit: 200 });
  const [refusing, setRefusing] = useState<HeldRedemptionResponse | null>(null);
  const [blocklist, setBlocklist] = useState<BlockKind[]>([]);
  const [refuse, { isLoading: refusingNow }] = useRedemptionReviewControllerRefuseMutation();
  const confirmRefuse = async () => {
    if (!refusing) return;
    const result = await refuse({ id: refusing.redemptionId, refuseReviewDto: { blocklist } });
    if ('error' in result) {
      toast({ title: 'Not refused', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'Redemption refused', description: refusing.voucherCode, variant: 'success' });
    setRefusing(null);
    setBlocklist([]);
  };
  const items = data?.items ?? [];
  return (
    <Stack spacing={2}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        Redemptions a risk rule held: the customer sees manual processing and gets no key until you decide.
      </Typography>
      {!isLoading && items.length === 0 && <Alert severity="success">No redemptions wait for review.</Alert>}
      {data && data.total > items.length && (
        <Typography variant="caption">{`Showing the oldest ${items.length} of ${data.total}.`}</Typography>
      )}
      {items.map((item) => (
        <Case key={item.redemptionId} item={item} onRefuse={() => setRefusing(item)} />
      ))}
      <ConfirmDialog
        open={refusing !== null}
        title="Refuse redemption"
        confirmLabel="Refuse"
        busy={refusingNow}
        onConfirm={() => void confirmRefuse()}
        onClose={() => {
          setRefusing(null);
          setBlocklist([]);
        }}
      >
        <Typography sx={{ mb: 1 }}>
          {`Refuse the redemption of ${refusing?.voucherCode ?? ''}? The code is refunded and the customer is told to contact support.`}
        </Typography>
        <FormGroup>
          {BLOCK_KINDS.map(({ kind, label }) => (
            <FormControlLabel
              key={kind}
              label={label}
              control={
                <Checkbox
                  checked={blocklist.includes(kind)}
                  onChange={(e) => setBlocklist((b) => (e.target.checked ? [...b, kind] : b.filter((k) => k !== kind)))}
                />
              }
            />
          ))}
        </FormGroup>
      </ConfirmDialog>
    </Stack>
  );
}
