import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import { useState } from 'react';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { LicenseManagerTab } from '../licenses/LicenseManagerTab';
import { ProductsTab } from '../products/ProductsTab';
import { RedemptionsTab } from '../redemptions/RedemptionsTab';
import { ReviewTab } from '../reviews/ReviewTab';
import { SettingsTab } from '../settings/SettingsTab';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { DashboardHeader } from './DashboardHeader';
import { DataUpdatedNotice } from './DataUpdatedNotice';
import type { Period } from './dashboardApi';
import { StatsPanel } from './StatsPanel';

export type DashboardTab = 'products' | 'licenses' | 'redemptions' | 'exported' | 'review' | 'settings';

const TABS: Array<{ value: DashboardTab; label: string }> = [
  { value: 'products', label: 'Products' },
  { value: 'licenses', label: 'License Manager' },
  { value: 'redemptions', label: 'Recent Redemptions' },
  { value: 'exported', label: 'Exported Vouchers' },
  // Held redemptions (docs/product.md §25.5), for reviews.manage.
  { value: 'review', label: 'Review' },
  { value: 'settings', label: 'Settings' },
];

/** docs/product.md §3.2 Admin dashboard. */
export function DashboardPage() {
  useDocumentTitle('Admin Dashboard');
  const { can } = usePermissions();
  const [period, setPeriod] = useState<Period>('today');
  const [tab, setTab] = useState<DashboardTab>('products');
  // The pool list needs licenses.view, Settings settings.access (docs/product.md §7.4): what the server refuses is not offered.
  const tabs = TABS.filter(
    (t) =>
      (t.value !== 'settings' || can(PERMISSIONS.settingsAccess)) &&
      (t.value !== 'licenses' || can(PERMISSIONS.licensesView)) &&
      (t.value !== 'review' || can(PERMISSIONS.reviewsManage)),
  );
  const current = tabs.some((t) => t.value === tab) ? tab : 'products';

  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <DashboardHeader />
      <Container component="main" maxWidth="xl" sx={{ py: 3 }}>
        <Stack spacing={3}>
          <StatsPanel period={period} onPeriodChange={setPeriod} notice={<DataUpdatedNotice />} />
          <Paper variant="outlined">
            <Tabs
              value={current}
              onChange={(_e, value: DashboardTab) => setTab(value)}
              variant="scrollable"
              scrollButtons="auto"
              aria-label="Dashboard sections"
              sx={{ borderBottom: 1, borderColor: 'divider', px: 1 }}
            >
              {tabs.map((t) => (
                <Tab
                  key={t.value}
                  value={t.value}
                  label={t.label}
                  id={`tab-${t.value}`}
                  aria-controls={`panel-${t.value}`}
                />
              ))}
            </Tabs>
            <Box
              role="tabpanel"
              id={`panel-${current}`}
              aria-labelledby={`tab-${current}`}
              sx={{ p: { xs: 2, md: 3 } }}
            >
              {current === 'products' && <ProductsTab />}
              {current === 'licenses' && <LicenseManagerTab />}
              {/* key={tab}: switching between the two lists remounts them (page 1, filter all, search empty). */}
              {(current === 'redemptions' || current === 'exported') && (
                <RedemptionsTab
                  key={current}
                  showExported={current === 'exported'}
                  onOpenExported={() => setTab('exported')}
                />
              )}
              {current === 'review' && <ReviewTab />}
              {current === 'settings' && <SettingsTab />}
            </Box>
          </Paper>
        </Stack>
      </Container>
    </Box>
  );
}

export default DashboardPage;
