import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { StatusChip, type StatusColor } from '../../components/status/StatusChip';
import { useWebhookControllerDeliveriesQuery } from '../../api';

const STATUS_COLOR: Record<string, StatusColor> = { delivered: 'success', failed: 'error', pending: 'warning' };

/** While deliveries are being retried the log refreshes itself; a settled log is read once. */
const POLL_MS = 3000;

/** The last 20 deliveries of one endpoint, newest first: event, status, HTTP answer, attempts. */
export function WebhookDeliveries({ endpointId, url }: { endpointId: string; url: string }) {
  const { data } = useWebhookControllerDeliveriesQuery(endpointId, {
    pollingInterval: POLL_MS,
    skipPollingIfUnfocused: true,
  });
  const deliveries = data?.deliveries ?? [];
  if (!deliveries.length) {
    return (
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        No deliveries yet.
      </Typography>
    );
  }
  return (
    <TableContainer>
      <Table size="small" aria-label={`Deliveries to ${url}`}>
        <TableHead>
          <TableRow>
            <TableCell>Time</TableCell>
            <TableCell>Event</TableCell>
            <TableCell>Status</TableCell>
            <TableCell align="right">Response</TableCell>
            <TableCell align="right">Attempts</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {deliveries.map((d) => (
            <TableRow key={d.id}>
              <TableCell>{new Date(d.createdAt).toLocaleString('en-US')}</TableCell>
              <TableCell>{d.event}</TableCell>
              <TableCell>
                <StatusChip label={d.status} color={STATUS_COLOR[d.status]} capitalize />
              </TableCell>
              <TableCell align="right" title={d.lastError ?? undefined}>
                {d.responseStatus ?? (d.lastError ? 'No answer' : '—')}
              </TableCell>
              <TableCell align="right">{d.attempts}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
