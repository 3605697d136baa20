import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormHelperText from '@mui/material/FormHelperText';
import FormLabel from '@mui/material/FormLabel';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent } from 'react';
import { bodyMessage } from '../../utils/httpError';
import { useWebhookControllerCreateMutation, WEBHOOK_EVENTS, type WebhookEvent } from '../../api';

/** Add a webhook: URL and events. The server checks the URL (https, public address) and answers the secret once. */
export function WebhookForm({ onCreated }: { onCreated: (secret: string, url: string) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['redemption.created']);
  const [create, { isLoading, error, reset }] = useWebhookControllerCreateMutation();
  const toggle = (event: WebhookEvent) =>
    setEvents((current) => (current.includes(event) ? current.filter((e) => e !== event) : [...current, event]));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({ url: url.trim(), events });
    if ('data' in result && result.data) {
      onCreated(result.data.secret, result.data.url);
      setUrl('');
    }
  };
  const message = error ? bodyMessage(error) : undefined;
  return (
    <Stack component="form" spacing={2} onSubmit={(event) => void submit(event)} aria-label="Add webhook" noValidate>
      <TextField
        label="Endpoint URL"
        placeholder="https://example.com/hooks/licences"
        value={url}
        onChange={(e) => {
          setUrl(e.target.value);
          if (error) reset();
        }}
        error={Boolean(message)}
        helperText={message ?? 'https:// only; the address must be public.'}
        required
        fullWidth
      />
      <FormControl component="fieldset" variant="standard">
        <FormLabel component="legend">Events</FormLabel>
        <FormGroup row>
          {WEBHOOK_EVENTS.map((event) => (
            <FormControlLabel
              key={event}
              control={<Checkbox checked={events.includes(event)} onChange={() => toggle(event)} />}
              label={event}
            />
          ))}
        </FormGroup>
        {!events.length && <FormHelperText>Choose at least one event.</FormHelperText>}
      </FormControl>
      <div>
        <Button type="submit" variant="contained" disabled={isLoading || !url.trim() || !events.length}>
          {isLoading ? 'Adding...' : 'Add Webhook'}
        </Button>
      </div>
    </Stack>
  );
}
