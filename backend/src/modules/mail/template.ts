export type TemplateValues = Record<string, string | null | undefined>;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/**
 * Fills `{{name}}` placeholders (spaces inside the braces allowed). Values are HTML-escaped when `html` is
 * true; the template itself is the admin's own HTML and is left as written (docs/product.md §12.1).
 * Unknown placeholders are left untouched so a typo stays visible in the test e-mail.
 */
export function renderTemplate(template: string, values: TemplateValues, html = true): string {
  return template.replace(/\{\{\s*([a-zA-Z_]+)\s*\}\}/g, (whole, name: string) => {
    if (!(name in values)) return whole;
    const value = values[name] ?? '';
    return html ? escapeHtml(value) : value;
  });
}

/** Plain-text twin of an HTML body for mail clients that show text only. */
export function htmlToText(html: string): string {
  return html
    .replace(/<\s*br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
    .replace(/<li[^>]*>/gi, '- ')
    .replace(/<a [^>]*href="([^"]*)"[^>]*>(.*?)<\/a>/gi, (_m, href: string, text: string) =>
      text === href ? href : `${text} (${href})`,
    )
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
