import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { PoolForecast } from './productsApi';

/** The days-left text of a pool forecast (docs/product.md §20.2). */
export function daysLeftText(forecast: Pick<PoolForecast, 'daysLeft'>): string {
  if (forecast.daysLeft === null) return 'no redemptions in the last 7 days';
  return `≈ ${forecast.daysLeft.toLocaleString('en-US')} ${forecast.daysLeft === 1 ? 'day' : 'days'} of keys left`;
}

/** A licence-managed product card's pool line: days of keys left, in the warning colour when the pool is low. */
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
    </Stack>
  );
}
