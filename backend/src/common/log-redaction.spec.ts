import { redactHeaders, redactRequest, redactResponse, redactUrl } from './log-redaction';

describe('log redaction', () => {
  it('redacts success tokens in paths and secrets in query strings', () => {
    expect(redactUrl('/api/success-token/abc_DEF-123')).toBe('/api/success-token/[Redacted]');
    expect(redactUrl('/api/license-keys?productId=1&search=ABCDE-12345')).toBe(
      '/api/license-keys?productId=1&search=[Redacted]',
    );
  });

  it('redacts every credential header and secret body field', () => {
    expect(
      redactHeaders({
        authorization: 'Bearer x',
        cookie: 'a=b',
        'x-api-key': 'k',
        'proxy-authorization': 'p',
        'idempotency-key': 'i',
        accept: '*/*',
      }),
    ).toEqual({
      authorization: '[Redacted]',
      cookie: '[Redacted]',
      'x-api-key': '[Redacted]',
      'proxy-authorization': '[Redacted]',
      'idempotency-key': '[Redacted]',
      accept: '*/*',
    });
    const logged = redactRequest({
      method: 'POST',
      url: '/api/redeem-voucher',
      headers: {},
      body: { voucherCode: 'ABCD-1234', email: 'a@b.c', nested: { refreshToken: 'r' } },
    } as never);
    expect(logged.body).toEqual({ voucherCode: '[Redacted]', email: 'a@b.c', nested: { refreshToken: '[Redacted]' } });
  });

  it("redacts the licence centre's sign-in link token (page query and session body) and customer tokens", () => {
    expect(redactUrl('/my-licences?token=abcDEF_123-x')).toBe('/my-licences?token=[Redacted]');
    const logged = redactRequest({
      method: 'POST',
      url: '/api/customer/session',
      headers: {},
      body: { token: 't', customerToken: 'c' },
    } as never);
    expect(logged.body).toEqual({ token: '[Redacted]', customerToken: '[Redacted]' });
  });

  it('redacts the second factor: TOTP and recovery codes at sign-in', () => {
    const logged = redactRequest({
      method: 'POST',
      url: '/api/admin/login',
      headers: {},
      body: { username: 'admin', password: 'p', twoFactorCode: '123456', recoveryCode: 'K7QM-2XWD-R9PA-HT4C' },
    } as never);
    expect(logged.body).toEqual({
      username: 'admin',
      password: '[Redacted]',
      twoFactorCode: '[Redacted]',
      recoveryCode: '[Redacted]',
    });
  });

  it("keeps no redirect target and no cookie of a response (the single sign-on hand-off's code and cookie)", () => {
    expect(
      redactResponse({
        statusCode: 302,
        headers: {
          Location: '/admin/login#sso-code=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXhx',
          'set-cookie': ['ovr_sso_handoff=c2VjcmV0; Path=/api/admin/oidc/exchange; HttpOnly; SameSite=Strict'],
          'content-location': '/x?token=t',
          refresh: '0; url=/x?token=t',
          'content-type': 'text/plain; charset=utf-8',
        },
      }),
    ).toEqual({
      statusCode: 302,
      headers: {
        Location: '[Redacted]',
        'set-cookie': '[Redacted]',
        'content-location': '[Redacted]',
        refresh: '[Redacted]',
        'content-type': 'text/plain; charset=utf-8',
      },
    });
    expect(redactResponse({ statusCode: 204 })).toEqual({ statusCode: 204, headers: undefined });
  });
});
