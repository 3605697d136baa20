import { htmlToText, renderTemplate } from './template';

describe('renderTemplate', () => {
  it('fills placeholders with or without spaces inside the braces', () => {
    expect(
      renderTemplate('Hi {{customer_name}}, key {{ license_key }}', { customer_name: 'Ann', license_key: 'K-1' }),
    ).toBe('Hi Ann, key K-1');
  });

  it('escapes values but not the template', () => {
    expect(renderTemplate('<b>{{customer_name}}</b>', { customer_name: '<script>alert("x")</script>' })).toBe(
      '<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</b>',
    );
  });

  it('keeps unknown placeholders and renders missing values as empty', () => {
    expect(renderTemplate('{{unknown}} [{{license_key}}]', { license_key: null })).toBe('{{unknown}} []');
  });

  it('does not escape plain-text renders such as subjects', () => {
    expect(renderTemplate('For {{customer_name}}', { customer_name: "O'Neil & Co" }, false)).toBe("For O'Neil & Co");
  });
});

describe('htmlToText', () => {
  it('keeps links and line structure', () => {
    expect(htmlToText('<p>Hello &amp; welcome</p><p><a href="https://x.test/d">here</a></p>')).toBe(
      'Hello & welcome\nhere (https://x.test/d)',
    );
  });
});
