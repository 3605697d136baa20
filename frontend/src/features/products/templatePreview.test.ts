import { renderTemplatePreview, SAMPLE_VALUES } from './templatePreview';

describe('email template preview', () => {
  it('substitutes sample values for the four placeholders, spaces inside the braces allowed', () => {
    const html = renderTemplatePreview(
      '<p>{{customer_name}} {{ voucher_code }} {{download_link}} {{  license_key}}</p>',
      SAMPLE_VALUES,
    );
    expect(html).toBe('<p>John Doe SAMPLE-VOUCHER-1234 https://example.com/download XXXXX-XXXXX-XXXXX-XXXXX-XXXXX</p>');
  });

  it('escapes values in HTML but not in the subject, and leaves unknown placeholders alone', () => {
    const values = { customer_name: '<b>Ann & Co</b>' };
    expect(renderTemplatePreview('Hi {{customer_name}} {{unknown}}', values)).toBe(
      'Hi &lt;b&gt;Ann &amp; Co&lt;/b&gt; {{unknown}}',
    );
    expect(renderTemplatePreview('Hi {{customer_name}}', values, false)).toBe('Hi <b>Ann & Co</b>');
  });
});
