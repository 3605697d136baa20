import { orderEmailMessageId } from './redemption-mail.service';

describe('orderEmailMessageId', () => {
  it('is the redemption and its resend number at the domain of MAIL_FROM, whatever the form of MAIL_FROM', () => {
    expect(orderEmailMessageId('42', 0, 'Office Licences <no-reply@shop.example>')).toBe(
      '<redemption-42-0@shop.example>',
    );
    expect(orderEmailMessageId('42', 3, 'orders@mail.shop.example')).toBe('<redemption-42-3@mail.shop.example>');
    expect(orderEmailMessageId('42', 1, 'no address')).toBe('<redemption-42-1@localhost>');
  });
});
