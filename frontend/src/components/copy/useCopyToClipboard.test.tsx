import { act, renderHook } from '@testing-library/react';
import { getToasts, resetToasts } from '../toast/toastStore';
import { COPY_RESET_MS, useCopyToClipboard } from './useCopyToClipboard';

const original = Object.getOwnPropertyDescriptor(navigator, 'clipboard');
function setClipboard(writeText: (text: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
}

afterEach(() => {
  jest.useRealTimers();
  act(() => resetToasts());
  if (original) Object.defineProperty(navigator, 'clipboard', original);
  else delete (navigator as { clipboard?: unknown }).clipboard;
});

describe('copying to the clipboard', () => {
  it('confirms on the copied item (a licence key) for exactly 2 s, without a toast', async () => {
    jest.useFakeTimers();
    const written: string[] = [];
    setClipboard(async (text) => void written.push(text));
    const { result } = renderHook(() => useCopyToClipboard('Failed to copy license key to clipboard.'));
    await act(() => result.current.copy('ABCDE-12345', { id: 'key-1' }));
    expect(written).toEqual(['ABCDE-12345']);
    expect(result.current.copiedId).toBe('key-1');
    act(() => jest.advanceTimersByTime(COPY_RESET_MS - 1));
    expect(result.current.copiedId).toBe('key-1');
    act(() => jest.advanceTimersByTime(1));
    expect(result.current.copiedId).toBeNull();
    expect(result.current.copied).toBe(false);
    expect(COPY_RESET_MS).toBe(2000);
    expect(getToasts()).toHaveLength(0);
  });

  it('with a label says "Copied!" / "{label} has been copied to your clipboard"', async () => {
    setClipboard(async () => undefined);
    const { result } = renderHook(() => useCopyToClipboard());
    await act(() => result.current.copy('ABCDE-12345', { label: 'Product Key' }));
    expect(result.current.copied).toBe(true);
    expect(getToasts()[0]).toMatchObject({
      title: 'Copied!',
      description: 'Product Key has been copied to your clipboard',
    });
  });

  it('a refused copy says "Copy failed" / "Failed to copy license key to clipboard." for licence keys', async () => {
    setClipboard(() => Promise.reject(new Error('denied')));
    const { result } = renderHook(() => useCopyToClipboard('Failed to copy license key to clipboard.'));
    await act(() => result.current.copy('ABCDE-12345', { id: 'key-1' }));
    expect(result.current.copiedId).toBeNull();
    expect(getToasts()[0]).toMatchObject({
      title: 'Copy failed',
      description: 'Failed to copy license key to clipboard.',
      variant: 'destructive',
    });
  });

  it('a refused copy says "Copy failed" / "Please manually select and copy the text" by default', async () => {
    setClipboard(() => Promise.reject(new Error('denied')));
    const { result } = renderHook(() => useCopyToClipboard());
    await act(() => result.current.copy('secret', { label: 'Operator password' }));
    expect(result.current.copied).toBe(false);
    expect(getToasts()[0]).toMatchObject({
      title: 'Copy failed',
      description: 'Please manually select and copy the text',
      variant: 'destructive',
    });
  });
});
