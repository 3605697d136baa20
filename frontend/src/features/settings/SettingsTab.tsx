import CheckCircleOutlined from '@mui/icons-material/CheckCircleOutlined';
import DeleteForever from '@mui/icons-material/DeleteForever';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Grid from '@mui/material/Grid';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { CleanSystemDialog } from './CleanSystemDialog';
import { PrivacyRequestsCard } from './PrivacyRequestsCard';
import { WebhooksCard } from './WebhooksCard';
import { ApiTokensCard } from './ApiTokensCard';
import { MarketplacesCard } from './MarketplacesCard';
import { RiskCard } from './RiskCard';
import { useAuthControllerMeQuery, useProductControllerListQuery, useStatsControllerForPeriodQuery } from '../../api';

const FEATURES = [
  'Voucher redemption with automatic license assignment',
  'Dual email system with primary and fallback providers',
  'Geo-blocking (Germany)',
  'Real-time dashboard updates',
  'Role-based access (admin, operator)',
  'Two-factor authentication for staff accounts',
  'CSV and TXT exports',
];

function Info({ label, value }: { label: string; value: string | number | undefined }) {
  return (
    <Stack direction="row" sx={{ justifyContent: 'space-between', py: 0.5 }}>
      <Typography sx={{ color: 'text.secondary' }}>{label}</Typography>
      <Typography sx={{ fontWeight: 600 }}>
        {value === undefined ? '—' : typeof value === 'number' ? value.toLocaleString('en-US') : value}
      </Typography>
    </Stack>
  );
}

/** docs/product.md §3.13 Settings tab: Danger Zone with Clean System, and system information. */
export function SettingsTab() {
  const { can } = usePermissions();
  const { data: stats } = useStatsControllerForPeriodQuery('alltime');
  const { data: products } = useProductControllerListQuery();
  const { data: me } = useAuthControllerMeQuery();
  const [cleaning, setCleaning] = useState(false);
  const totalCodes = products?.reduce((sum, p) => sum + p.totalCount, 0);
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 6 }}>
        <Card variant="outlined" component="section" aria-labelledby="system-info-title">
          <CardContent>
            <Typography id="system-info-title" variant="h3" component="h2" gutterBottom>
              System Information
            </Typography>
            <Info label="Products" value={products?.length} />
            <Info label="Voucher codes" value={totalCodes} />
            <Info label="Total redemptions (all time)" value={stats?.totalRedemptions} />
            <Info label="Active vouchers" value={stats?.activeVouchers} />
            <Info label="Signed in as" value={me ? `${me.username} (${me.role})` : undefined} />
            <Typography variant="subtitle2" sx={{ mt: 2 }}>
              Features
            </Typography>
            <List dense>
              {FEATURES.map((f) => (
                <ListItem key={f} disableGutters>
                  <ListItemIcon sx={{ minWidth: 32 }}>
                    <CheckCircleOutlined color="success" fontSize="small" />
                  </ListItemIcon>
                  <ListItemText primary={f} />
                </ListItem>
              ))}
            </List>
          </CardContent>
        </Card>
      </Grid>
      {can(PERMISSIONS.systemCleanup) && (
        <Grid size={{ xs: 12, md: 6 }}>
          <Card
            variant="outlined"
            component="section"
            aria-labelledby="danger-title"
            sx={{ borderColor: 'error.main' }}
          >
            <CardContent>
              <Typography id="danger-title" variant="h3" component="h2" color="error" gutterBottom>
                Danger Zone
              </Typography>
              <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
                Clean System permanently deletes all voucher codes, customers, redemptions and license assignments.
              </Typography>
              <Button color="error" variant="contained" startIcon={<DeleteForever />} onClick={() => setCleaning(true)}>
                Clean System
              </Button>
            </CardContent>
          </Card>
          <CleanSystemDialog open={cleaning} onClose={() => setCleaning(false)} />
        </Grid>
      )}
      {can(PERMISSIONS.webhooksManage) && (
        <Grid size={12}>
          <WebhooksCard />
        </Grid>
      )}
      {can(PERMISSIONS.marketplacesManage) && (
        <Grid size={12}>
          <MarketplacesCard />
        </Grid>
      )}
      {can(PERMISSIONS.apiTokensManage) && (
        <Grid size={12}>
          <ApiTokensCard />
        </Grid>
      )}
      {can(PERMISSIONS.settingsAccess) && (
        <Grid size={12}>
          <RiskCard />
        </Grid>
      )}
      {can(PERMISSIONS.settingsAccess) && (
        <Grid size={12}>
          <PrivacyRequestsCard />
        </Grid>
      )}
    </Grid>
  );
}
