import Typography from '@mui/material/Typography';

/** Placeholder so the dashboard compiles before engineer B's tab is merged (B owns this file). */
export function RedemptionsTab({ showExported }: { showExported: boolean }) {
  return <Typography color="text.secondary">{showExported ? 'Exported Vouchers' : 'Recent Redemptions'}</Typography>;
}
