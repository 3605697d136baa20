import express from 'express';
import { Writable } from 'stream';
import { pinoHttp } from 'pino-http';
import request from 'supertest';
import { redactRequest, redactResponse } from './log-redaction';
import { requestLog } from './request-log';

/** An express app with the request log on a logger built as AppModule builds it, and the JSON lines it wrote. */
function appWithLog(level: string) {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const { logger } = pinoHttp({ level, serializers: { req: redactRequest, res: redactResponse } }, stream);
  const app = express();
  app.use(requestLog(logger, { ignore: (req) => req.url === '/api/health' }));
  app.get('/api/ok', (req, res) => {
    req.log.warn('inside the request');
    res.json({ ok: true });
  });
  app.get('/api/success-token/:token', (_req, res) => res.json({}));
  app.get('/api/boom', (_req, res) => res.status(500).json({}));
  app.get('/api/health', (_req, res) => res.json({}));
  return { app, lines };
}

describe('requestLog', () => {
  it("answers the caller's request id, or a new one, and binds the request's logger to it", async () => {
    const { app, lines } = appWithLog('info');
    const mine = await request(app).get('/api/ok').set('x-request-id', 'trace-1').expect(200);
    expect(mine.headers['x-request-id']).toBe('trace-1');
    const fresh = await request(app).get('/api/ok').expect(200);
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    // One it would not keep: too long, or with characters a request id does not need.
    for (const forged of ['x'.repeat(129), 'a b', 'id"}{"admin":true']) {
      const res = await request(app).get('/api/ok').set('x-request-id', forged).expect(200);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }

    const inside = lines.filter((line) => line.msg === 'inside the request').slice(0, 2);
    expect(inside.map((line) => line.reqId)).toEqual(['trace-1', fresh.headers['x-request-id']]);
    expect(inside[0].req).toBeUndefined(); // the request itself is on its completion line only
  });

  it('writes one completion line per request, in pino-http’s shape, redacted by the serializers', async () => {
    const { app, lines } = appWithLog('info');
    await request(app).get('/api/success-token/tok-secret-1?x=1').set('Authorization', 'Bearer abc').expect(200);
    const done = lines.filter((line) => line.msg === 'request completed');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({
      level: 30,
      reqId: expect.any(String),
      req: { method: 'GET', url: '/api/success-token/[Redacted]?x=1', headers: { authorization: '[Redacted]' } },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    expect(done[0].req.id).toBe(done[0].reqId);
    expect(JSON.stringify(lines)).not.toContain('tok-secret-1');
  });

  it('marks an answer from status 500 as an error, and leaves the health check out', async () => {
    const { app, lines } = appWithLog('info');
    await request(app).get('/api/boom').expect(500);
    await request(app).get('/api/health').expect(200);
    expect(lines.map((line) => line.msg)).toEqual(['request errored']);
    expect(lines[0]).toMatchObject({ res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
  });

  it('writes no completion line below its level, and still what the request logs at a level kept', async () => {
    const { app, lines } = appWithLog('warn');
    await request(app).get('/api/ok').expect(200);
    await request(app).get('/api/boom').expect(500);
    expect(lines.map((line) => line.msg)).toEqual(['inside the request']);
  });
});
