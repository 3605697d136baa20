import {
  MESSAGES,
  normaliseVoucherInput,
  toRedeemRequest,
  validateField,
  validateForm,
  type RedeemFormValues,
} from './redeemRules';

const valid: RedeemFormValues = {
  firstName: 'Ann',
  lastName: "O'Neil-Smith",
  email: 'Ann@Example.com',
  phone: '+1 302 555 0100',
  voucherCode: 'ABCD-1234_EF',
  acceptPrivacyPolicy: true,
};

describe('redemption form rules (docs/product.md §6.1)', () => {
  it('accepts a complete, valid form', () => {
    expect(validateForm(valid)).toEqual({});
  });

  it.each([
    ['', 'Voucher code is required'],
    ['   ', 'Voucher code is required'],
    ['A'.repeat(101), 'Voucher code too long'],
    ['ABC 123', 'Invalid voucher code format'],
    ['ABC!123', 'Invalid voucher code format'],
  ])('voucher code %j → %s', (value, message) => {
    expect(validateField('voucherCode', value)).toBe(message);
  });

  it('voucher code: 100 characters, trimmed, letters, digits, hyphen and underscore are fine', () => {
    expect(validateField('voucherCode', 'A'.repeat(100))).toBeUndefined();
    expect(validateField('voucherCode', '  AB-12_cd  ')).toBeUndefined();
  });

  it.each([
    ['firstName', '', 'First name is required'],
    ['firstName', 'x'.repeat(51), 'First name too long'],
    ['firstName', 'Ann2', 'First name contains invalid characters'],
    ['lastName', ' ', 'Last name is required'],
    ['lastName', 'y'.repeat(51), 'Last name too long'],
    ['lastName', 'Lee;', 'Last name contains invalid characters'],
  ] as const)('%s %j → %s', (field, value, message) => {
    expect(validateField(field, value)).toBe(message);
  });

  it('names allow letters of any language, spaces, hyphens and apostrophes', () => {
    expect(validateField('firstName', 'Zoë Anne-Marie')).toBeUndefined();
    expect(validateField('lastName', "D'Àngelo")).toBeUndefined();
  });

  it('e-mail must be valid and at most 254 characters', () => {
    expect(validateField('email', '')).toBe(MESSAGES.emailInvalid);
    expect(validateField('email', 'ann@')).toBe(MESSAGES.emailInvalid);
    expect(validateField('email', 'ann example.com')).toBe(MESSAGES.emailInvalid);
    expect(validateField('email', ' ANN@EXAMPLE.COM ')).toBeUndefined();
    const long = `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com`;
    expect(long.length).toBeGreaterThan(254);
    expect(validateField('email', long)).toBe('Email address too long');
  });

  it('phone is optional; max 20; optional plus, first digit 1-9, then 7-15 digits, spaces, hyphens, parentheses or dots', () => {
    expect(validateField('phone', '')).toBeUndefined();
    expect(validateField('phone', '+1 (302) 555-0100')).toBeUndefined();
    expect(validateField('phone', '44.20.7946.0958')).toBeUndefined();
    expect(validateField('phone', '+1 302 555 0100 1234 5')).toBe('Phone number too long');
    expect(validateField('phone', '0302 555 0100')).toBe('Invalid phone number format');
    expect(validateField('phone', '+1 555')).toBe('Invalid phone number format');
    expect(validateField('phone', '+1 302 555 CALL')).toBe('Invalid phone number format');
  });

  it('the privacy policy and terms must be accepted', () => {
    expect(validateField('acceptPrivacyPolicy', false)).toBe(
      'You must accept the privacy policy and terms & conditions to proceed',
    );
    expect(validateField('acceptPrivacyPolicy', true)).toBeUndefined();
  });

  it('upper-cases the voucher input as typed', () => {
    expect(normaliseVoucherInput('abc-12x')).toBe('ABC-12X');
  });

  it('builds the request body: trimmed, e-mail lower-cased, code upper-cased, honeypots and submissionTime passed on', () => {
    const body = toRedeemRequest(
      { ...valid, firstName: ' Ann ', email: ' Ann@Example.COM ', voucherCode: ' abcd-1234 ', phone: ' ' },
      { submissionTime: '1700000000000', website: '', company_website: '' },
    );
    expect(body).toEqual({
      voucherCode: 'ABCD-1234',
      firstName: 'Ann',
      lastName: "O'Neil-Smith",
      email: 'ann@example.com',
      phone: '',
      acceptPrivacyPolicy: true,
      submissionTime: '1700000000000',
      website: '',
      company_website: '',
    });
  });
});
