import { act, renderHook } from '@testing-library/react';
import { getToasts, resetToasts } from '../../components/toast/toastStore';
import { COPY_RESET_MS, useCopyKey } from './useCopyKey';

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

describe('copying a licence key', () => {
  it('confirms on the copied key for exactly 2 s', async () => {
    jest.useFakeTimers();
    const written: string[] = [];
    setClipboard(async (text) => void written.push(text));
    const { result } = renderHook(() => useCopyKey());
    await act(() => result.current.copy('key-1', 'ABCDE-12345'));
    expect(written).toEqual(['ABCDE-12345']);
    expect(result.current.copiedId).toBe('key-1');
    act(() => jest.advanceTimersByTime(COPY_RESET_MS - 1));
    expect(result.current.copiedId).toBe('key-1');
    act(() => jest.advanceTimersByTime(1));
    expect(result.current.copiedId).toBeNull();
    expect(COPY_RESET_MS).toBe(2000);
  });

  it('a refused copy says "Copy failed" / "Failed to copy license key to clipboard."', async () => {
    setClipboard(() => Promise.reject(new Error('denied')));
    const { result } = renderHook(() => useCopyKey());
    await act(() => result.current.copy('key-1', 'ABCDE-12345'));
    expect(result.current.copiedId).toBeNull();
    expect(getToasts()[0]).toMatchObject({ title: 'Copy failed', description: 'Failed to copy license key to clipboard.', variant: 'destructive' });
  });
});
