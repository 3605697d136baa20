import Typography from '@mui/material/Typography';

/** Placeholder so the dashboard compiles before engineer B's tab is merged (B owns this file). */
export function LicenseManagerTab() {
  return <Typography color="text.secondary">License Manager</Typography>;
}
