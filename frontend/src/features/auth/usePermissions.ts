import { api } from '../../app/api';

/**
 * Placeholder (engineer B) until engineer A's auth feature lands: the signed-in user's role and permissions
 * from `GET /api/admin/me` (contract item 3). The lead keeps A's version of this file when merging.
 */
interface Me {
  id: string;
  username: string;
  email: string;
  role: string;
  permissions: string[];
  twoFactorEnabled: boolean;
}

const meApi = api.injectEndpoints({
  endpoints: (build) => ({
    me: build.query<Me, void>({ query: () => 'admin/me', providesTags: ['Me'], keepUnusedDataFor: 300 }),
  }),
  overrideExisting: false,
});

function storedToken(): string | null {
  try {
    return localStorage.getItem('adminToken') ?? localStorage.getItem('authToken');
  } catch {
    return null;
  }
}

export function usePermissions(): { role: string | null; permissions: string[]; can: (permission: string) => boolean } {
  const { data } = meApi.useMeQuery(undefined, { skip: !storedToken() });
  const permissions = data?.permissions ?? [];
  return { role: data?.role ?? null, permissions, can: (permission) => permissions.includes(permission) };
}
