import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { logFormat, PinoNestLogger, PRETTY_OPTIONS, prettyLogs, QuietBootLogger } from './logging';

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

describe("Nest's start-up lines", () => {
  it('go to debug through QuietBootLogger; every other line keeps its level', () => {
    const calls: string[] = [];
    const inner = {
      log: (m: unknown, ctx?: unknown) => calls.push(`log ${String(ctx)} ${String(m)}`),
      debug: (m: unknown, ctx?: unknown) => calls.push(`debug ${String(ctx)} ${String(m)}`),
      error: () => undefined,
      warn: (m: unknown, ctx?: unknown) => calls.push(`warn ${String(ctx)} ${String(m)}`),
    };
    const logger = new QuietBootLogger(inner);
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Mapped {/api/health, GET} route', 'RouterExplorer');
    logger.log('Listening on http://localhost:3000', 'Main');
    logger.warn('Created admin user', 'AdminBootstrap');
    expect(calls).toEqual([
      'debug InstanceLoader AppModule dependencies initialized',
      'debug RouterExplorer Mapped {/api/health, GET} route',
      'log Main Listening on http://localhost:3000',
      'warn AdminBootstrap Created admin user',
    ]);
  });

  it('are not written at LOG_LEVEL info by the start-up logger', () => {
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const logger = new PinoNestLogger(pino({ level: 'info' }, stream));
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('Initialising embedded PostgreSQL', 'Database');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['Initialising embedded PostgreSQL']);
  });
});

describe('the terminal format', () => {
  it('prints a request as one line: method, path, status and time', () => {
    const out = prettyFactory({ ...PRETTY_OPTIONS, colorize: false })({
      level: 30,
      time: 0,
      msg: 'request completed',
      reqId: 'id-1',
      req: { method: 'POST', url: '/api/redeem-voucher', headers: { host: 'localhost', 'user-agent': 'curl' } },
      res: { statusCode: 201, headers: { 'content-type': 'application/json' } },
      responseTime: 12,
    });
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(out).toMatch(/INFO: request completed POST \/api\/redeem-voucher 201 12 ms$/m);
    expect(out).not.toMatch(/user-agent|content-type|id-1/);
  });
});
