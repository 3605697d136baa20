import { classifyMailError } from './mail-failure';

describe('classifyMailError', () => {
  const err = (message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), extra);

  it('keeps the class and the SMTP code, never the text (which quotes the recipient)', () => {
    const rejected = err("Can't send mail - all recipients were rejected: 550 5.1.1 <jane@example.com>: unknown user", {
      code: 'EENVELOPE',
      responseCode: 550,
    });
    expect(classifyMailError(rejected)).toEqual({ reason: 'rejected', smtpCode: 550 });
    expect(JSON.stringify(classifyMailError(rejected))).not.toContain('jane');
    expect(classifyMailError(err('Greylisted', { code: 'EENVELOPE', responseCode: 451 }))).toEqual({
      reason: 'rejected',
      smtpCode: 451,
    });
    expect(classifyMailError(err('Invalid login: 535 5.7.8', { code: 'EAUTH', responseCode: 535 }))).toEqual({
      reason: 'auth',
      smtpCode: 535,
    });
    expect(classifyMailError(err('Greeting never received', { code: 'ETIMEDOUT' }))).toEqual({
      reason: 'timeout',
      smtpCode: null,
    });
    expect(classifyMailError(err('Connection timeout', { code: 'ECONNECTION' }))).toEqual({
      reason: 'timeout',
      smtpCode: null,
    });
    expect(classifyMailError(err('connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNECTION' }))).toEqual({
      reason: 'connection',
      smtpCode: null,
    });
    expect(classifyMailError('weird')).toEqual({ reason: 'other', smtpCode: null });
  });
});
