import { logFormat, prettyLogs } from './logging';

describe('log format', () => {
  it('is pretty only on a terminal outside production', () => {
    expect(prettyLogs({ nodeEnv: 'development' }, { isTTY: true })).toBe(true);
    expect(prettyLogs({ nodeEnv: 'test' }, { isTTY: true })).toBe(true);
    expect(prettyLogs({ nodeEnv: 'production' }, { isTTY: true })).toBe(false);
    expect(prettyLogs({ nodeEnv: 'development' }, { isTTY: false })).toBe(false);
    expect(prettyLogs({ nodeEnv: 'development' }, {})).toBe(false);
  });

  it('uses the pino-pretty transport, which is installed', () => {
    const stdout = process.stdout as { isTTY?: boolean };
    const was = stdout.isTTY;
    stdout.isTTY = true;
    try {
      expect(logFormat({ nodeEnv: 'development' }).transport).toMatchObject({ target: 'pino-pretty' });
      expect(logFormat({ nodeEnv: 'production' })).toEqual({});
    } finally {
      stdout.isTTY = was;
    }
    expect(() => require.resolve('pino-pretty')).not.toThrow();
  });
});
