import { currentAccessToken, withSessionRenewal } from '../../app/authorizedFetch';
import type { UploadReport } from './productsApi';

export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** docs/product.md §15.1 / §6.5: the accepted file types. */
export function isAcceptedVoucherFile(file: File): boolean {
  return /\.(csv|txt)$/i.test(file.name);
}

function send(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
  failed: string,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    const token = currentAccessToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // plain text body
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new UploadError(failed, 0));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/**
 * Sends a file of voucher codes as multipart (`file`) with XMLHttpRequest so the upload progress can be shown; a
 * 401 renews the access token once and sends again (`withSessionRenewal`, as for every API call). Resolves with
 * the server's report, rejects with its message (`failed` when there is none).
 */
export async function postCodeFile<T>(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
  failed: string,
): Promise<T> {
  let attempts = 0;
  const answer = await withSessionRenewal(
    () => {
      if (attempts++ > 0) onProgress(0);
      return send(path, file, onProgress, failed);
    },
    (a) => a.status === 401,
  );
  if (answer.status >= 200 && answer.status < 300) return answer.body as T;
  const body = answer.body as { message?: unknown } | string;
  const message = typeof body === 'object' && body && typeof body.message === 'string' ? body.message : failed;
  throw new UploadError(message, answer.status);
}

/** The upload of a voucher file to a product (docs/product.md §15.1). */
export function uploadVoucherFile(
  productId: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<UploadReport> {
  return postCodeFile(
    `/api/products/${encodeURIComponent(productId)}/voucher-codes`,
    file,
    onProgress,
    'Failed to upload voucher codes.',
  );
}
