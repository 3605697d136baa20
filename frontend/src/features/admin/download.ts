import { getAccessToken } from '../auth/tokenStorage';

/**
 * Placeholder so engineer A's pages compile before engineer B's version is merged (B owns this file).
 * Fetches with the bearer token, throws Error(message) with the server's JSON `message` on non-OK (status in
 * `(err as any).status`), saves the blob under the Content-Disposition filename or `fallbackName`.
 */
export async function downloadFile(url: string, init: RequestInit | undefined, fallbackName: string): Promise<void> {
  const token = getAccessToken();
  const headers = new Headers(init?.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const res = await fetch(url, { credentials: 'include', ...init, headers });
  if (!res.ok) {
    let message = res.statusText || 'Export failed';
    try {
      const body = (await res.json()) as { message?: string };
      if (body?.message) message = body.message;
    } catch {
      // not JSON
    }
    const err = new Error(message) as Error & { status?: number };
    err.status = res.status;
    throw err;
  }
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  const name = match ? decodeURIComponent(match[1]) : fallbackName;
  const blob = await res.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}
