/**
 * A field of a prerendered page (frontend/build/page-files.mts) as the visitor left it before the app took the page
 * over: what was typed there is read back so that nothing typed early is lost. Null when rendered anywhere else
 * (the build's prerender itself has no document) or when the page has no such field.
 */
export function prerenderedInput(id: string): HTMLInputElement | null {
  if (typeof document === 'undefined') return null;
  return document.getElementById(id) as HTMLInputElement | null;
}
