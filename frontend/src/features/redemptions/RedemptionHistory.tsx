import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import { formatDateTime } from './formatDate';
import { displayLicenseKey, type RedemptionHistoryEvent } from './redemptionsApi';
import { useRedemptionHistoryControllerGetQuery } from '../../api';

function details(event: RedemptionHistoryEvent): string {
  const parts = [formatDateTime(event.at), event.actor ? `by ${event.actor}` : 'by an unknown user'];
  if (event.licenseKey) parts.push(`key ${displayLicenseKey(event.licenseKey)}`);
  if (event.error) parts.push(event.error);
  return parts.join(' · ');
}

/** docs/product.md §20.3 "History" of the details modal: what happened, newest first, who and when. */
export function RedemptionHistory({ redemptionId }: { redemptionId: string }) {
  const { data, isLoading, isError } = useRedemptionHistoryControllerGetQuery(redemptionId);
  if (isLoading) {
    return (
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        Loading history...
      </Typography>
    );
  }
  if (isError || !data) {
    return (
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        The history could not be loaded.
      </Typography>
    );
  }
  const events = [...data.events].reverse();
  if (!events.length) {
    return (
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        Nothing recorded yet.
      </Typography>
    );
  }
  return (
    <List dense disablePadding aria-label="Redemption history" data-testid="redemption-history">
      {events.map((event, i) => (
        <ListItem key={`${event.at}-${event.type}-${i}`} disableGutters data-event-type={event.type}>
          <ListItemText
            primary={event.description}
            secondary={details(event)}
            slotProps={{ secondary: { sx: { wordBreak: 'break-word' } } }}
          />
        </ListItem>
      ))}
    </List>
  );
}
