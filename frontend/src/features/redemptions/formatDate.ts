/** Dates of the admin lists in the browser's locale, with time. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** A redemption whose customer erased their personal data (licence centre): what stands in for name and e-mail. */
export function erasedOn(erasedAt: string): string {
  return `Erased on ${new Date(erasedAt).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })}`;
}
