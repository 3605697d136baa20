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
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { CopyButton } from '../../components/copy/CopyButton';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { WebhookDeliveries } from './WebhookDeliveries';
import { WebhookForm } from './WebhookForm';
import { type WebhookEndpoint } from './webhooksApi';
import {
  useWebhookControllerListQuery,
  useWebhookControllerRemoveMutation,
  useWebhookControllerResumeMutation,
  useWebhookControllerSendTestMutation,
} from '../../api';

/** The signing secret, shown once right after the endpoint is added. */
function SecretDialog({ secret, onClose }: { secret: string | null; onClose: () => void }) {
  const { copy, copied } = useCopyToClipboard();
  return (
    <Dialog open={secret !== null} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="webhook-secret-title">
      <DialogTitle id="webhook-secret-title">Webhook signing secret</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          Copy this secret now: it is not shown again. Receivers use it to verify the Webhook-Signature header.
        </Alert>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Box component="code" data-testid="webhook-secret" sx={{ wordBreak: 'break-all', fontFamily: 'monospace' }}>
            {secret}
          </Box>
          <CopyButton
            copied={copied}
            label="Copy secret"
            copiedLabel="Secret copied"
            onClick={() => void (secret && copy(secret, { label: 'Secret' }))}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Done</Button>
      </DialogActions>
    </Dialog>
  );
}

function Endpoint({ endpoint, onDelete }: { endpoint: WebhookEndpoint; onDelete: () => void }) {
  const [sendTest, { isLoading }] = useWebhookControllerSendTestMutation();
  const [resumeEndpoint, { isLoading: resuming }] = useWebhookControllerResumeMutation();
  const resume = async () => {
    const result = await resumeEndpoint(endpoint.id);
    if ('error' in result) {
      toast({ title: 'Webhook not resumed', description: bodyMessage(result.error), variant: 'destructive' });
    } else {
      toast({
        title: 'Webhook resumed',
        description: `${result.data.requeued} queued deliveries are sent now.`,
        variant: 'success',
      });
    }
  };
  const test = async () => {
    const result = await sendTest(endpoint.id);
    if ('error' in result) {
      toast({ title: 'Test event not sent', description: bodyMessage(result.error), variant: 'destructive' });
    } else {
      toast({
        title: 'Test event queued',
        description: `A webhook.test delivery to ${endpoint.url} is on its way.`,
        variant: 'success',
      });
    }
  };
  return (
    <Box component="article" aria-label={`Webhook ${endpoint.url}`} sx={{ py: 2 }}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
      >
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', minWidth: 0 }}>
          <Typography sx={{ fontWeight: 600, wordBreak: 'break-all' }}>{endpoint.url}</Typography>
          {endpoint.pausedAt && <Chip label="Paused" color="warning" size="small" />}
        </Stack>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          {endpoint.pausedAt && (
            <Button size="small" variant="contained" onClick={() => void resume()} disabled={resuming}>
              Resume
            </Button>
          )}
          <Button size="small" variant="outlined" onClick={() => void test()} disabled={isLoading}>
            Send test event
          </Button>
          <DeleteButton label={`webhook ${endpoint.url}`} onClick={onDelete} />
        </Stack>
      </Stack>
      <Stack direction="row" spacing={1} sx={{ my: 1, flexWrap: 'wrap' }}>
        {endpoint.events.map((e) => (
          <Chip key={e} label={e} size="small" variant="outlined" />
        ))}
      </Stack>
      {endpoint.pausedAt && (
        <Alert severity="warning" sx={{ my: 1 }}>
          {`Paused on ${new Date(endpoint.pausedAt).toLocaleString()} after ${endpoint.consecutiveFailures} failed attempts in a row. ` +
            'Its deliveries are kept and sent when you resume it.'}
        </Alert>
      )}
      <WebhookDeliveries endpointId={endpoint.id} url={endpoint.url} />
    </Box>
  );
}

/** Settings → Webhooks (docs/product.md §20.4): add an endpoint, see its deliveries, send a test event, delete it. */
export function WebhooksCard() {
  const { data: endpoints = [] } = useWebhookControllerListQuery();
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const [remove, { isLoading: removing }] = useWebhookControllerRemoveMutation();
  const confirmDelete = async () => {
    if (!deleting) return;
    const result = await remove(deleting.id);
    if ('error' in result) {
      toast({ title: 'Webhook not deleted', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'Webhook deleted', description: deleting.url, variant: 'success' });
    setDeleting(null);
  };
  return (
    <Card variant="outlined" component="section" aria-labelledby="webhooks-title">
      <CardContent>
        <Typography id="webhooks-title" variant="h3" component="h2" gutterBottom>
          Webhooks
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
          Signed JSON notifications of redemptions, licence assignments, failed e-mails, low pools and voided vouchers.
        </Typography>
        <WebhookForm
          onCreated={(created, url) => {
            setSecret(created);
            toast({ title: 'Webhook added', description: url, variant: 'success' });
          }}
        />
        {endpoints.map((endpoint) => (
          <Box key={endpoint.id}>
            <Divider sx={{ mt: 2 }} />
            <Endpoint endpoint={endpoint} onDelete={() => setDeleting(endpoint)} />
          </Box>
        ))}
      </CardContent>
      <SecretDialog secret={secret} onClose={() => setSecret(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete webhook"
        confirmLabel="Delete"
        busy={removing}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      >
        {`Delete the webhook ${deleting?.url ?? ''} and its delivery log? It receives no further events.`}
      </ConfirmDialog>
    </Card>
  );
}
