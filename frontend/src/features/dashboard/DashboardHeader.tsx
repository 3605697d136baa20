import Key from '@mui/icons-material/Key';
import Logout from '@mui/icons-material/Logout';
import PersonOutlined from '@mui/icons-material/PersonOutlined';
import RestartAlt from '@mui/icons-material/RestartAlt';
import Security from '@mui/icons-material/Security';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { ChangePasswordDialog } from '../account/ChangePasswordDialog';
import { ResetOperatorDialog } from '../account/ResetOperatorDialog';
import { useLogout } from '../auth/useLogout';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { useAuthControllerMeQuery } from '../../api';

/** docs/product.md §3.2 header: Customer View, Change Password (and beside it Security), Reset Operator (when allowed), Logout. */
export function DashboardHeader() {
  const { data: me } = useAuthControllerMeQuery();
  const { can } = usePermissions();
  const logout = useLogout();
  const [dialog, setDialog] = useState<'password' | 'operator' | null>(null);
  const [leaving, setLeaving] = useState(false);
  return (
    <Paper
      component="header"
      square
      elevation={0}
      sx={{ borderBottom: 1, borderColor: 'divider', px: { xs: 2, md: 4 }, py: 2 }}
    >
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        sx={{ justifyContent: 'space-between', alignItems: { md: 'center' }, gap: 2 }}
      >
        <Stack spacing={0.5}>
          <Typography variant="h1">Admin Dashboard</Typography>
          {me && (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                Signed in as <strong>{me.username}</strong>
              </Typography>
              <Chip size="small" label={me.role} color={me.role === 'admin' ? 'primary' : 'default'} />
            </Stack>
          )}
        </Stack>
        <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
          <Button component={RouterLink} to="/" variant="outlined" startIcon={<PersonOutlined />}>
            Customer View
          </Button>
          <Button variant="outlined" startIcon={<Key />} onClick={() => setDialog('password')}>
            Change Password
          </Button>
          <Button component={RouterLink} to="/admin/security" variant="outlined" startIcon={<Security />}>
            Security
          </Button>
          {can(PERMISSIONS.resetOperator) && (
            <Button variant="outlined" color="warning" startIcon={<RestartAlt />} onClick={() => setDialog('operator')}>
              Reset Operator
            </Button>
          )}
          <Button
            variant="contained"
            color="inherit"
            startIcon={<Logout />}
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              void logout();
            }}
          >
            Logout
          </Button>
        </Stack>
      </Stack>
      <ChangePasswordDialog open={dialog === 'password'} onClose={() => setDialog(null)} />
      {can(PERMISSIONS.resetOperator) && (
        <ResetOperatorDialog open={dialog === 'operator'} onClose={() => setDialog(null)} />
      )}
    </Paper>
  );
}
