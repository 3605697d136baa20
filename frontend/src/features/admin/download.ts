import { authorizedFetch, currentAccessToken } from '../../app/authorizedFetch';

/**
 * File downloads of the admin console (docs/product.md §8.5 Exports): the request goes through `authorizedFetch` (bearer
 * token; an expired one is renewed once and the request sent again), a non-OK answer throws an Error with the server's JSON `message` (HTTP status in `status`), and the file is
 * saved under the name from `Content-Disposition`, else `fallbackName`.
 */
export const AUTH_REQUIRED_MESSAGE = 'Authentication required';

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** `attachment; filename="a.csv"` or RFC 5987 `filename*=UTF-8''a.csv`. */
export function filenameFromDisposition(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through to the plain parameter */
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/.exec(header);
  const name = (plain?.[2] ?? plain?.[1])?.trim();
  return name || undefined;
}

/** `{date}` of the dated default names (docs/product.md §8.5), e.g. `unredeemed-vouchers-2025-08-15.csv`. */
export function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

async function errorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body?.message === 'string' && body.message) return body.message;
    if (Array.isArray(body?.message) && body.message.length) return String(body.message[0]);
  } catch {
    /* not JSON */
  }
  return text || res.statusText || `Request failed with status ${res.status}`;
}

export function saveFile(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the blob URL goes away.
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}

export async function downloadFile(url: string, init: RequestInit | undefined, fallbackName: string): Promise<void> {
  if (!currentAccessToken()) throw new DownloadError(AUTH_REQUIRED_MESSAGE, 401);
  const headers = new Headers(init?.headers);
  if (typeof init?.body === 'string' && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  const res = await authorizedFetch(url, { ...init, headers });
  if (!res.ok) throw new DownloadError(await errorMessage(res), res.status);
  const blob = await res.blob();
  saveFile(blob, filenameFromDisposition(res.headers.get('Content-Disposition')) ?? fallbackName);
}
