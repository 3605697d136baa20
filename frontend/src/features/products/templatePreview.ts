/** docs/product.md §3.10, §12.7: the editor's preview substitutes sample values for the placeholders. */
export const SAMPLE_VALUES = {
  customer_name: 'John Doe',
  voucher_code: 'SAMPLE-VOUCHER-1234',
  download_link: 'https://example.com/download',
  license_key: 'XXXXX-XXXXX-XXXXX-XXXXX-XXXXX',
  activation_link: 'https://example.com/licence-package.pkg',
  removal_tool_link: 'https://example.com/removal-tool.pkg',
} as const;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Replaces `{{ name }}` placeholders (spaces inside the braces allowed, docs/product.md §12.1); unknown ones stay. */
export function renderTemplatePreview(template: string, values: Record<string, string>, html = true): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (whole, name: string) => {
    const value = values[name.toLowerCase()];
    if (value === undefined) return whole;
    return html ? escapeHtml(value) : value;
  });
}
