import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { type PrivacyRequest } from './privacyRequestsApi';
import { usePrivacyRequestsControllerListQuery } from '../../api';

const KIND_TEXT: Record<PrivacyRequest['kind'], string> = {
  'link-sent': 'Sign-in link sent',
  'link-limit': 'Sign-in link refused (3 an hour)',
  'data-export': 'Data downloaded',
  erasure: 'Personal data erased',
};

/**
 * Settings → Privacy requests (docs/support.md): what customers did in the licence centre, with dates and the
 * customer's internal id, never their personal data.
 */
export function PrivacyRequestsCard() {
  const { data, isLoading, error } = usePrivacyRequestsControllerListQuery();
  return (
    <Card variant="outlined" component="section" aria-labelledby="privacy-requests-title">
      <CardContent>
        <Typography id="privacy-requests-title" variant="h3" component="h2" gutterBottom>
          Privacy requests
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
          Sign-in links, data downloads and erasures customers asked for in the licence centre (/my-licences), newest
          first. Customers are shown by their internal id only.
        </Typography>
        {isLoading && <CircularProgress size={24} aria-label="Loading privacy requests" />}
        {error && <Alert severity="error">The privacy requests could not be loaded.</Alert>}
        {data && data.requests.length === 0 && <Typography variant="body2">No requests yet.</Typography>}
        {data && data.requests.length > 0 && (
          <Table size="small" aria-labelledby="privacy-requests-title">
            <TableHead>
              <TableRow>
                <TableCell>Date</TableCell>
                <TableCell>Request</TableCell>
                <TableCell>Customer id</TableCell>
                <TableCell align="right">Redemptions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {data.requests.map((r) => (
                <TableRow key={r.id}>
                  <TableCell>{new Date(r.at).toLocaleString()}</TableCell>
                  <TableCell>{KIND_TEXT[r.kind] ?? r.kind}</TableCell>
                  <TableCell sx={{ fontFamily: 'monospace', fontSize: '0.8rem' }}>{r.customerId ?? '—'}</TableCell>
                  <TableCell align="right">{r.redemptions ?? ''}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}
