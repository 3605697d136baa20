import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Grid from '@mui/material/Grid';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { DailyRedemptionsChart } from './DailyRedemptionsChart';
import { PERIOD_LABELS, PERIODS, STATS_POLL_MS, type Period } from './dashboardApi';
import { useStatsControllerForPeriodQuery } from '../../api';

function StatCard({ title, value, caption }: { title: string; value: number | undefined; caption: string }) {
  return (
    <Card sx={{ height: '100%' }} aria-label={title}>
      <CardContent>
        <Typography variant="subtitle2" sx={{ color: 'text.secondary' }}>
          {title}
        </Typography>
        <Typography variant="h2" component="p" sx={{ my: 0.5 }} data-testid={`stat-${title}`}>
          {value === undefined ? <Skeleton width={60} /> : value.toLocaleString('en-US')}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {caption}
        </Typography>
      </CardContent>
    </Card>
  );
}

/** The period selector, the stat cards (refetched every 10 s) and the daily chart. */
export function StatsPanel({
  period,
  onPeriodChange,
  notice,
}: {
  period: Period;
  onPeriodChange: (p: Period) => void;
  notice?: ReactNode;
}) {
  const { data } = useStatsControllerForPeriodQuery(period, { pollingInterval: STATS_POLL_MS });
  return (
    <Stack spacing={2}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 2 }}>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <Typography variant="h2">Overview</Typography>
          {notice}
        </Stack>
        <TextField
          select
          size="small"
          label="Time Period"
          value={period}
          onChange={(e) => onPeriodChange(e.target.value as Period)}
          sx={{ width: 220 }}
        >
          {PERIODS.map((p) => (
            <MenuItem key={p} value={p}>
              {PERIOD_LABELS[p]}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          {/* One name per period: the selector's (docs/product.md §3.2), not a second spelling. */}
          <StatCard title="Total Redemptions" value={data?.totalRedemptions} caption={PERIOD_LABELS[period]} />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, md: 3 }}>
          <StatCard
            title="Active Vouchers"
            value={data?.activeVouchers}
            caption={
              data?.voidVouchers
                ? `Unredeemed codes available (${data.voidVouchers.toLocaleString('en-US')} void not counted)`
                : 'Unredeemed codes available'
            }
          />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Card sx={{ height: '100%' }}>
            <CardContent>
              {data ? (
                <DailyRedemptionsChart data={data.dailyRedemptions} />
              ) : (
                <Skeleton variant="rectangular" height={160} />
              )}
            </CardContent>
          </Card>
        </Grid>
      </Grid>
    </Stack>
  );
}
