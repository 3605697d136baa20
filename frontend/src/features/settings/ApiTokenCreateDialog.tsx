import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent } from 'react';
import { CopyButton } from '../../components/copy/CopyButton';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { bodyMessage } from '../../utils/httpError';
import { TOKEN_PERMISSIONS, useApiTokensControllerCreateMutation, type TokenPermission } from '../../api';
import type { CreatedApiToken } from './apiTokensApi';

const LIFETIMES = [30, 90, 180, 365];

/** Create a token: name, permissions, lifetime; then the token itself, shown this once with a copy button. */
export function ApiTokenCreateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [create, { isLoading }] = useApiTokensControllerCreateMutation();
  const { copy, copied } = useCopyToClipboard();
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<TokenPermission[]>([]);
  const [expiresInDays, setExpiresInDays] = useState(90);
  const [error, setError] = useState<string | undefined>();
  const [created, setCreated] = useState<CreatedApiToken | null>(null);

  const close = () => {
    setName('');
    setPermissions([]);
    setExpiresInDays(90);
    setError(undefined);
    setCreated(null);
    onClose();
  };
  const toggle = (p: TokenPermission) =>
    setPermissions((current) => (current.includes(p) ? current.filter((x) => x !== p) : [...current, p]));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ name: name.trim(), permissions, expiresInDays });
    if ('error' in result) setError(bodyMessage(result.error) ?? 'The token could not be created.');
    else setCreated(result.data);
  };

  return (
    <Dialog open={open} onClose={close} maxWidth="sm" fullWidth aria-labelledby="api-token-create-title">
      <DialogTitle id="api-token-create-title">{created ? 'API token created' : 'Create API token'}</DialogTitle>
      {created ? (
        <>
          <DialogContent>
            <Alert severity="warning" sx={{ mb: 2 }}>
              Copy this token now: it is not shown again. Integrations send it as “Authorization: Bearer …”.
            </Alert>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Box
                component="code"
                data-testid="api-token-value"
                sx={{ wordBreak: 'break-all', fontFamily: 'monospace' }}
              >
                {created.token}
              </Box>
              <CopyButton
                copied={copied}
                label="Copy token"
                copiedLabel="Token copied"
                onClick={() => void copy(created.token, { label: 'Token' })}
              />
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>Done</Button>
          </DialogActions>
        </>
      ) : (
        <Box component="form" onSubmit={(event) => void submit(event)} noValidate>
          <DialogContent>
            <Stack spacing={2}>
              <TextField
                label="Name"
                value={name}
                onChange={(e) => setName(e.target.value.slice(0, 100))}
                required
                autoFocus
                helperText="Who uses it, e.g. “Shop integration”"
              />
              <FormControl component="fieldset">
                <FormLabel component="legend">Permissions</FormLabel>
                <FormGroup row>
                  {TOKEN_PERMISSIONS.map((p) => (
                    <FormControlLabel
                      key={p}
                      sx={{ width: { sm: '50%' }, mr: 0 }}
                      label={p}
                      control={<Checkbox checked={permissions.includes(p)} onChange={() => toggle(p)} />}
                    />
                  ))}
                </FormGroup>
              </FormControl>
              <TextField
                select
                label="Expires after"
                value={expiresInDays}
                onChange={(e) => setExpiresInDays(Number(e.target.value))}
              >
                {LIFETIMES.map((days) => (
                  <MenuItem key={days} value={days}>
                    {days} days
                  </MenuItem>
                ))}
              </TextField>
              {error && <Alert severity="error">{error}</Alert>}
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>Cancel</Button>
            <Button type="submit" variant="contained" disabled={isLoading || !name.trim() || permissions.length === 0}>
              Create token
            </Button>
          </DialogActions>
        </Box>
      )}
    </Dialog>
  );
}
