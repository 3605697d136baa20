import { screen, waitFor } from '@testing-library/react';
import { usePermissions } from '../features/auth/usePermissions';

/**
 * Shows the role the console has loaded from `GET /api/admin/me` (component tests only). Rendered beside the
 * component under test, it lets a test check positively that the screen has rendered with the permissions
 * applied (`permissionsApplied`) before it asserts what is hidden.
 */
export function PermissionsProbe() {
  const { role } = usePermissions();
  return <output aria-label="Loaded role">{role ?? ''}</output>;
}

/** Resolves once the screen has rendered with `role`'s permissions (the same render shows the probe). */
export async function permissionsApplied(role: string): Promise<void> {
  // hidden: an open modal dialog hides the rest of the page from the accessibility tree.
  const probe = await screen.findByRole('status', { name: 'Loaded role', hidden: true });
  await waitFor(() => expect(probe).toHaveTextContent(new RegExp(`^${role}$`)));
}
