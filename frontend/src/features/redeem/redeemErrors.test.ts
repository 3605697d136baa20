import { describeRedeemFailure, redemptionFailureText } from './redeemErrors';

describe('redemption failure messages (docs/product.md §9.2 Public)', () => {
  it('strips a leading status prefix and reads the message of a JSON body', () => {
    expect(
      redemptionFailureText(
        '409: {"statusCode":409,"message":"This voucher code has already been redeemed.","error":"Conflict"}',
      ),
    ).toBe('This voucher code has already been redeemed.');
    expect(redemptionFailureText('400: {"message":"Invalid voucher code format"}')).toBe('Invalid voucher code format');
  });

  it('shows plain text without its prefix', () => {
    expect(redemptionFailureText('500: Service temporarily unavailable')).toBe('Service temporarily unavailable');
    expect(redemptionFailureText('Something odd happened')).toBe('Something odd happened');
  });

  it('falls back to the default text', () => {
    expect(redemptionFailureText(undefined)).toBe('Please check your voucher code and try again.');
    expect(redemptionFailureText('401: ')).toBe('Please check your voucher code and try again.');
    expect(redemptionFailureText('400: {"statusCode":400}')).toBe('Please check your voucher code and try again.');
  });

  it('sends 451 and GEO_BLOCKED bodies to the region page', () => {
    expect(describeRedeemFailure({ status: 451, data: { message: 'x' } })).toEqual({ kind: 'geo-blocked' });
    expect(
      describeRedeemFailure({ status: 403, data: { code: 'GEO_BLOCKED', error: 'Access Restricted', message: 'x' } }),
    ).toEqual({ kind: 'geo-blocked' });
  });

  it('turns an HTTP error into the modal text, and a network failure into the default', () => {
    expect(
      describeRedeemFailure({
        status: 404,
        data: {
          statusCode: 404,
          message: 'Invalid voucher code. Please check the code and try again.',
          error: 'Not Found',
        },
      }),
    ).toEqual({
      kind: 'failed',
      message: 'Invalid voucher code. Please check the code and try again.',
    });
    expect(describeRedeemFailure({ status: 502, data: '' })).toEqual({ kind: 'failed', message: 'Bad Gateway' });
    expect(describeRedeemFailure({ status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' })).toEqual({
      kind: 'failed',
      message: 'Please check your voucher code and try again.',
    });
  });
});
