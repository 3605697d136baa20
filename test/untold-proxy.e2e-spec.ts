import { Writable } from 'stream';
import { startTestApp } from './helpers/app';

/**
 * TRUST_PROXY unset behind a proxy makes every customer one address (docs/product.md §18.3): the service says so in
 * its log. Both apps write into one collector: nestjs-pino keeps one root logger per process, the first app's.
 */
describe('a proxy the service was not told about', () => {
  const lines: Array<{ level: number; msg?: string }> = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const warnings = () => lines.filter((l) => l.level === 40 && String(l.msg).includes('TRUST_PROXY'));

  it('is named in the log once, with the fix, when forwarded requests arrive and TRUST_PROXY is unset', async () => {
    const told = await startTestApp({ LOG_LEVEL: 'info', TRUST_PROXY: 'loopback' }, { logStream });
    try {
      await told.http().get('/api/public-config').set('X-Forwarded-For', '203.0.113.9').expect(200);
    } finally {
      await told.close();
    }
    expect(warnings()).toEqual([]);

    const untold = await startTestApp({ LOG_LEVEL: 'info' }, { logStream });
    try {
      await untold.http().get('/api/public-config').expect(200);
      expect(warnings()).toEqual([]);
      for (const client of ['203.0.113.9', '198.51.100.7']) {
        await untold.http().get('/api/public-config').set('X-Forwarded-For', client).expect(200);
      }
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0].msg).toMatch(
        /^Requests from 127\.0\.0\.1 carry X-Forwarded-For, but TRUST_PROXY is not set/,
      );
      expect(warnings()[0].msg).toContain("Set TRUST_PROXY to the proxy's address");
    } finally {
      await untold.close();
    }
  });
});
