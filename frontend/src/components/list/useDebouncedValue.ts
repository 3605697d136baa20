import { useEffect, useState } from 'react';

/** docs/product.md §10.4: search waits 500 ms after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 500;

/** The value as it was `delay` ms after it last changed. */
export function useDebouncedValue<T>(value: T, delay = SEARCH_DEBOUNCE_MS): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}
