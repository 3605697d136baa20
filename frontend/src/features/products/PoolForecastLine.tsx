import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { PoolForecast } from './productsApi';

/** The days-left text of a pool forecast (docs/product.md §20.2). */
export function daysLeftText(forecast: Pick<PoolForecast, 'daysLeft'>): string {
  if (forecast.daysLeft === null) return 'no redemptions in the last 7 days';
  return `≈ ${forecast.daysLeft.toLocaleString('en-US')} ${forecast.daysLeft === 1 ? 'day' : 'days'} of keys left`;
}

/** "3 customers waiting for a key": redemptions of the product waiting for a licence key (the low-pool alert's words). */
export function waitingText(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'customer' : 'customers'} waiting for a key`;
}

/**
 * A licence-managed product card's pool line: days of keys left, in the warning colour when the pool is low, with the
 * rule that makes it low and the customers waiting for a key.
 */
export function PoolForecastLine({ forecast }: { forecast: PoolForecast }) {
  const activations = forecast.availableActivations.toLocaleString('en-US');
  return (
    <Stack data-testid="pool-forecast" data-low={forecast.low ? 'true' : 'false'}>
      <Typography variant="body2" sx={{ fontWeight: 600, color: forecast.low ? 'warning.main' : 'text.primary' }}>
        {daysLeftText(forecast)}
      </Typography>
      <Typography variant="caption" sx={{ color: forecast.low ? 'warning.main' : 'text.secondary' }}>
        {`${activations} ${forecast.availableActivations === 1 ? 'activation' : 'activations'} available in the key pool`}
      </Typography>
      {forecast.low && forecast.lowReason && (
        <Typography variant="caption" sx={{ color: 'warning.main' }}>
          {`Low: ${forecast.lowReason}`}
        </Typography>
      )}
      {forecast.waitingCustomers > 0 && (
        <Typography variant="caption" sx={{ fontWeight: 600, color: 'warning.main' }}>
          {waitingText(forecast.waitingCustomers)}
        </Typography>
      )}
    </Stack>
  );
}
