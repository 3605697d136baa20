import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState, type FormEvent } from 'react';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { downloadFile, today } from '../admin/download';
import {
  type CreatedMarketplaceResponse,
  type MarketplaceResponse,
  useMarketplaceControllerCreateMutation,
  useMarketplaceControllerListQuery,
  useMarketplaceControllerRemoveMutation,
  useMarketplaceControllerRetryDeadMutation,
  useMarketplaceControllerStatusQuery,
  useProductControllerListQuery,
} from '../../api';

/** The signing secret, shown once right after the connection is made. */
function SecretDialog({ secret, onClose }: { secret: string | null; onClose: () => void }) {
  return (
    <Dialog open={secret !== null} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="marketplace-secret-title">
      <DialogTitle id="marketplace-secret-title">Marketplace signing secret</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          Copy this secret now: it is not shown again. The marketplace signs its events with it and checks the
          service&apos;s calls with it (docs/marketplaces.md).
        </Alert>
        <Box component="code" data-testid="marketplace-secret" sx={{ wordBreak: 'break-all', fontFamily: 'monospace' }}>
          {secret}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Done</Button>
      </DialogActions>
    </Dialog>
  );
}

/** Where a connection's marketplace sends its events (AppSumo's webhook URL). */
const eventsUrl = (id: string) => `${window.location.origin}/api/marketplaces/${id}/events`;

/**
 * Connect a marketplace: name, one product with the marketplace's reference, and either the generic protocol (base
 * URL, the switches of docs/product.md §24.1) or AppSumo's webhooks (its API key, §24.4).
 */
function MarketplaceForm({ onCreated }: { onCreated: (created: CreatedMarketplaceResponse) => void }) {
  const { data: products = [] } = useProductControllerListQuery();
  const [create, { isLoading, error, reset }] = useMarketplaceControllerCreateMutation();
  const [adapter, setAdapter] = useState<'generic' | 'appsumo'>('generic');
  const [apiKey, setApiKey] = useState('');
  const appsumo = adapter === 'appsumo';
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [productId, setProductId] = useState('');
  const [externalRef, setExternalRef] = useState('');
  const [checkAtRedeem, setCheckAtRedeem] = useState(false);
  const [reportRedemptions, setReportRedemptions] = useState(true);
  const [onUnreachable, setOnUnreachable] = useState<'accept' | 'refuse'>('accept');
  const [pullIntervalSeconds, setPull] = useState('0');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const products = productId ? [{ productId, externalRef: externalRef.trim() }] : [];
    const result = await create(
      appsumo
        ? { name: name.trim(), adapter, apiKey: apiKey.trim(), products }
        : {
            name: name.trim(),
            baseUrl: baseUrl.trim(),
            products,
            checkAtRedeem,
            reportRedemptions,
            onUnreachable,
            pullIntervalSeconds: Number(pullIntervalSeconds) || 0,
          },
    );
    if ('data' in result && result.data) {
      onCreated(result.data);
      setName('');
      setBaseUrl('');
      setApiKey('');
      setExternalRef('');
    }
  };
  const message = error ? bodyMessage(error) : undefined;
  const edited =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      if (error) reset();
    };
  return (
    <Stack
      component="form"
      spacing={2}
      onSubmit={(event) => void submit(event)}
      aria-label="Connect marketplace"
      noValidate
    >
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <TextField
          select
          label="Protocol"
          value={adapter}
          onChange={(e) => edited(setAdapter)(e.target.value as 'generic' | 'appsumo')}
          sx={{ minWidth: 220 }}
        >
          <MenuItem value="generic">This service&apos;s protocol</MenuItem>
          <MenuItem value="appsumo">AppSumo licensing webhooks</MenuItem>
        </TextField>
        <TextField label="Name" value={name} onChange={(e) => edited(setName)(e.target.value)} required />
        {appsumo ? (
          <TextField
            label="AppSumo API key"
            value={apiKey}
            onChange={(e) => edited(setApiKey)(e.target.value)}
            required
            sx={{ flex: 1 }}
          />
        ) : (
          <TextField
            label="Base URL"
            placeholder="https://partner.example.com/licences"
            value={baseUrl}
            onChange={(e) => edited(setBaseUrl)(e.target.value)}
            required
            sx={{ flex: 1 }}
          />
        )}
      </Stack>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <TextField
          select
          label="Product"
          value={productId}
          onChange={(e) => edited(setProductId)(e.target.value)}
          sx={{ minWidth: 260 }}
        >
          {products.map((p) => (
            <MenuItem key={p.id} value={p.id}>
              {p.name}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label={appsumo ? 'AppSumo plan_id' : 'Marketplace reference'}
          placeholder={appsumo ? '' : 'SKU-OFFICE-2024'}
          value={externalRef}
          onChange={(e) => edited(setExternalRef)(e.target.value)}
        />
        {!appsumo && (
          <>
            <TextField
              select
              label="When the marketplace does not answer"
              value={onUnreachable}
              onChange={(e) => setOnUnreachable(e.target.value as 'accept' | 'refuse')}
              sx={{ minWidth: 240 }}
            >
              <MenuItem value="accept">Redeem and check again later</MenuItem>
              <MenuItem value="refuse">Refuse (503, try again later)</MenuItem>
            </TextField>
            <TextField
              label="Pull every (seconds, 0 = no pull)"
              type="number"
              value={pullIntervalSeconds}
              onChange={(e) => edited(setPull)(e.target.value)}
            />
          </>
        )}
      </Stack>
      {appsumo ? (
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          AppSumo only sends webhooks: a purchase brings its licence key in as a code, a deactivation refunds it. Once
          connected, give AppSumo the connection&apos;s webhook URL shown below.
        </Typography>
      ) : (
        <Stack direction="row" spacing={2} sx={{ flexWrap: 'wrap' }}>
          <FormControlLabel
            control={<Switch checked={checkAtRedeem} onChange={(e) => setCheckAtRedeem(e.target.checked)} />}
            label="Check each code with the marketplace at redeem"
          />
          <FormControlLabel
            control={<Switch checked={reportRedemptions} onChange={(e) => setReportRedemptions(e.target.checked)} />}
            label="Report redemptions back"
          />
        </Stack>
      )}
      {message && <Alert severity="error">{message}</Alert>}
      <Box>
        <Button type="submit" variant="contained" disabled={isLoading}>
          Connect marketplace
        </Button>
      </Box>
    </Stack>
  );
}

const ago = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : 'never');

/** One connection with its reconciliation figures, today's reconciliation file and "Retry dead reports". */
function Connection({ connection, onDelete }: { connection: MarketplaceResponse; onDelete: () => void }) {
  const { data: status, refetch } = useMarketplaceControllerStatusQuery(connection.id, { pollingInterval: 15_000 });
  const [retryDead, { isLoading }] = useMarketplaceControllerRetryDeadMutation();
  const [downloading, setDownloading] = useState(false);
  // Today's redemptions with their report status (docs/product.md §24.10).
  const reconcile = async () => {
    setDownloading(true);
    try {
      const url = `/api/marketplaces/${encodeURIComponent(connection.id)}/reconciliation`;
      await downloadFile(url, undefined, `marketplace-${today()}.csv`);
      toast({
        title: 'Export Successful',
        description: `Today's redemptions of ${connection.name} have been downloaded.`,
        variant: 'success',
      });
    } catch (err) {
      toast({
        title: 'Export Failed',
        description: (err as Error).message || 'Failed to download the reconciliation.',
        variant: 'destructive',
      });
    } finally {
      setDownloading(false);
    }
  };
  const retry = async () => {
    const result = await retryDead(connection.id);
    if ('error' in result) {
      toast({ title: 'Dead reports not retried', description: bodyMessage(result.error), variant: 'destructive' });
    } else {
      toast({ title: 'Dead reports queued again', description: result.data.message, variant: 'success' });
      void refetch();
    }
  };
  return (
    <Box component="article" aria-label={`Marketplace ${connection.name}`} sx={{ py: 2 }}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
      >
        <Stack spacing={0.5} sx={{ minWidth: 0 }}>
          <Typography sx={{ fontWeight: 600 }}>{connection.name}</Typography>
          <Typography variant="body2" sx={{ color: 'text.secondary', wordBreak: 'break-all' }}>
            {connection.adapter === 'appsumo'
              ? `AppSumo · webhook URL ${eventsUrl(connection.id)}`
              : connection.baseUrl}
          </Typography>
        </Stack>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Button size="small" variant="outlined" onClick={() => void reconcile()} disabled={downloading}>
            Reconciliation
          </Button>
          <Button
            size="small"
            variant="outlined"
            onClick={() => void retry()}
            disabled={isLoading || !status?.reports.dead}
          >
            Retry dead reports
          </Button>
          <DeleteButton label={`marketplace ${connection.name}`} onClick={onDelete} />
        </Stack>
      </Stack>
      <Stack direction="row" spacing={1} sx={{ my: 1, flexWrap: 'wrap' }}>
        {connection.products.map((p) => (
          <Chip key={p.productId} label={p.externalRef} size="small" variant="outlined" />
        ))}
        {connection.checkAtRedeem && <Chip label={`Live check (${connection.onUnreachable})`} size="small" />}
        {connection.reportRedemptions && <Chip label="Reports redemptions" size="small" />}
        {connection.pullIntervalSeconds > 0 && (
          <Chip label={`Pull every ${connection.pullIntervalSeconds} s`} size="small" />
        )}
      </Stack>
      {status && (
        <Typography variant="body2" data-testid="marketplace-status">
          {`Codes received ${status.codesReceived} · redeemed ${status.redeemed} · reports acked ` +
            `${status.reports.acked}, pending ${status.reports.pending}, dead ${status.reports.dead} · refunds applied ` +
            `${status.refundsApplied} · last event ${ago(status.lastEventAt)} · report lag ${status.reportLagSeconds} s`}
        </Typography>
      )}
      {connection.lastPullError && (
        <Alert severity="warning" sx={{ my: 1 }}>
          {`The last pull (${ago(connection.lastPullAt)}) failed: ${connection.lastPullError}`}
        </Alert>
      )}
    </Box>
  );
}

/**
 * Settings → Marketplaces (docs/product.md §24.1, §24.10, docs/marketplaces.md): connect, reconcile, retry dead
 * reports, delete.
 */
export function MarketplacesCard() {
  const { data: connections = [], refetch } = useMarketplaceControllerListQuery();
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<MarketplaceResponse | null>(null);
  const [remove, { isLoading: removing }] = useMarketplaceControllerRemoveMutation();
  const confirmDelete = async () => {
    if (!deleting) return;
    const result = await remove(deleting.id);
    if ('error' in result) {
      toast({ title: 'Marketplace not deleted', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'Marketplace deleted', description: deleting.name, variant: 'success' });
    setDeleting(null);
    void refetch();
  };
  return (
    <Card variant="outlined" component="section" aria-labelledby="marketplaces-title">
      <CardContent>
        <Typography id="marketplaces-title" variant="h3" component="h2" gutterBottom>
          Marketplaces
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
          Codes arrive from the marketplace that sold them, each redemption is reported back, and refunds come in.
        </Typography>
        <MarketplaceForm
          onCreated={(created) => {
            // An AppSumo connection's secret is the API key just typed: nothing new to show.
            if (created.adapter !== 'appsumo') setSecret(created.secret);
            toast({ title: 'Marketplace connected', description: created.name, variant: 'success' });
            void refetch();
          }}
        />
        {connections.map((connection) => (
          <Box key={connection.id}>
            <Divider sx={{ mt: 2 }} />
            <Connection connection={connection} onDelete={() => setDeleting(connection)} />
          </Box>
        ))}
      </CardContent>
      <SecretDialog secret={secret} onClose={() => setSecret(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete marketplace"
        confirmLabel="Delete"
        busy={removing}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      >
        {`Delete the connection ${deleting?.name ?? ''}? Its codes stay; no further events are accepted from it.`}
      </ConfirmDialog>
    </Card>
  );
}
