import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { ApiTokenCreateDialog } from './ApiTokenCreateDialog';
import { type ApiToken } from './apiTokensApi';
import { useApiTokensControllerListQuery, useApiTokensControllerRevokeMutation } from '../../api';

const date = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

function TokenRow({ token, onRevoke }: { token: ApiToken; onRevoke: () => void }) {
  const expired = Date.parse(token.expiresAt) <= Date.now();
  return (
    <Box component="article" aria-label={`API token ${token.name}`} sx={{ py: 2 }}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}
      >
        <Typography sx={{ fontWeight: 600 }}>
          {token.name} {expired && <Chip label="Expired" size="small" color="warning" sx={{ ml: 1 }} />}
        </Typography>
        <DeleteButton label={`API token ${token.name}`} onClick={onRevoke} />
      </Stack>
      <Stack direction="row" spacing={1} sx={{ my: 1, flexWrap: 'wrap', gap: 0.5 }}>
        {token.permissions.map((p) => (
          <Chip key={p} label={p} size="small" variant="outlined" />
        ))}
      </Stack>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        Created {date(token.createdAt)}
        {token.createdBy ? ` by ${token.createdBy}` : ''} · {expired ? 'expired' : 'expires'} {date(token.expiresAt)} ·
        last used {token.lastUsedAt ? date(token.lastUsedAt) : 'never'}
      </Typography>
    </Box>
  );
}

/** Settings → API tokens (admin): tokens for integrations with a chosen set of data permissions; revoke stops one at once. */
export function ApiTokensCard() {
  const { data: tokens = [] } = useApiTokensControllerListQuery();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [revoke, { isLoading }] = useApiTokensControllerRevokeMutation();
  const confirmRevoke = async () => {
    if (!revoking) return;
    const result = await revoke(revoking.id);
    if ('error' in result) {
      toast({ title: 'Token not revoked', description: bodyMessage(result.error), variant: 'destructive' });
    } else toast({ title: 'API token revoked', description: revoking.name, variant: 'success' });
    setRevoking(null);
  };
  return (
    <Card variant="outlined" component="section" aria-labelledby="api-tokens-title">
      <CardContent>
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap' }}>
          <Typography id="api-tokens-title" variant="h3" component="h2" gutterBottom>
            API tokens
          </Typography>
          <Button variant="contained" onClick={() => setCreating(true)}>
            Create token
          </Button>
        </Stack>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
          Integrations call the API with “Authorization: Bearer ovr_…”, limited to the permissions chosen here.
        </Typography>
        {tokens.length === 0 && <Typography sx={{ color: 'text.secondary', py: 2 }}>No API tokens.</Typography>}
        {tokens.map((token) => (
          <Box key={token.id}>
            <Divider />
            <TokenRow token={token} onRevoke={() => setRevoking(token)} />
          </Box>
        ))}
      </CardContent>
      <ApiTokenCreateDialog open={creating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke API token"
        confirmLabel="Revoke"
        busy={isLoading}
        onConfirm={() => void confirmRevoke()}
        onClose={() => setRevoking(null)}
      >
        {`Revoke the token “${revoking?.name ?? ''}”? Integrations using it are refused from the next call.`}
      </ConfirmDialog>
    </Card>
  );
}
