/** The calendar day (YYYY-MM-DD) of `date` in an IANA time zone: export file names, the day of a pool alert. */
export function dayIn(timeZone: string, date: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}
