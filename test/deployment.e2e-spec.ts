import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import { readFileSync } from 'fs';
import { createServer, Server } from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';
import { parse } from 'yaml';
import { startHaproxy } from './helpers/haproxy';
import { httpFrom, stopAllSpawned, waitUntil } from './helpers/processes';

/**
 * The shipped deployment (docker/) keeps its security invariants: only the proxy is published, the APIs
 * trust exactly the proxy's address for X-Forwarded-For, and no secret has a default.
 */
const dockerDir = join(__dirname, '..', 'docker');
// Compose files use YAML merge keys (`<<: *api`).
const compose = parse(readFileSync(join(dockerDir, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
const apis = Object.entries(services).filter(([, s]) => String(s.build?.dockerfile ?? '').includes('Dockerfile'));

describe('docker/docker-compose.yml', () => {
  it('runs two API instances and a worker from the image, behind one HAProxy', () => {
    expect(apis.map(([name]) => name).sort()).toEqual(['api1', 'api2', 'worker']);
    expect(services.proxy.image).toMatch(/^haproxy:/);
    expect(services.proxy.volumes).toContain('./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(services.worker.command).toContain('--worker');
  });

  it('publishes the proxy only, never an API, the database or the mail catcher; mail UI and monitoring on loopback only', () => {
    const publishedOn = (loopback: boolean) =>
      Object.entries(services)
        .filter(([, s]) => (s.ports ?? []).some((p: string) => String(p).startsWith('127.0.0.1:') === loopback))
        .map(([name]) => name)
        .sort();
    expect(publishedOn(false)).toEqual(['proxy']);
    // The mail catcher holds every order e-mail with its key and has no password: the Docker host itself only, like
    // Prometheus and Grafana (the `monitoring` profile).
    expect(publishedOn(true)).toEqual(['grafana', 'mail', 'prometheus']);
    expect(services.mail.ports).toEqual(['127.0.0.1:8025:8025']);
    expect(services.prometheus.profiles).toEqual(['monitoring']);
  });

  it("has the APIs trust exactly the proxy's fixed address, never `true`", () => {
    const proxyAddress = services.proxy.networks.internal.ipv4_address;
    expect(proxyAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    for (const [name, s] of apis) {
      expect({ name, trust: s.environment.TRUST_PROXY }).toEqual({ name, trust: proxyAddress });
    }
  });

  it('gives no secret and no PUBLIC_URL a default: compose refuses to start without them', () => {
    for (const [, s] of apis) {
      expect(s.environment.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?[^}]+\}$/);
      expect(s.environment.DATA_KEY).toMatch(/^\$\{DATA_KEY:\?[^}]+\}$/);
      expect(s.environment.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
      expect(s.environment.NODE_ENV).toBe('production');
      // Production refuses to start without it (docs/product.md §18.7).
      expect(s.environment.SMTP_URL).toMatch(/^smtps?:\/\//);
      // Likewise, and no default either: the links in e-mails would point to the API's own localhost (docs/product.md
      // §18.7), the value production refuses.
      expect(s.environment.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:\?[^}]+\}$/);
    }
    expect(services.postgres.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
  });

  it("shows how to start it: the README's and the file's own command set every variable compose requires", () => {
    const file = readFileSync(join(dockerDir, 'docker-compose.yml'), 'utf8');
    const required = [...new Set([...file.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]))].sort();
    expect(required).toEqual(['DATA_KEY', 'JWT_SECRET', 'POSTGRES_PASSWORD', 'PUBLIC_URL']);
    const readme = readFileSync(join(dockerDir, '..', 'README.md'), 'utf8');
    const commands = {
      readme: /^ *(PUBLIC_URL=[^\n]*\\\n[^\n]*docker compose -f docker\/docker-compose\.yml up[^\n]*)$/m.exec(
        readme,
      )?.[1],
      compose: /^# +(PUBLIC_URL=[^\n]*\\\n#[^\n]*docker compose -f docker\/docker-compose\.yml up[^\n]*)$/m.exec(
        file,
      )?.[1],
    };
    for (const [where, command] of Object.entries(commands)) {
      const set = [...(command ?? '').matchAll(/\b([A-Z_]+)=/g)].map((m) => m[1]).sort();
      expect({ where, set }).toEqual({ where, set: required });
    }
    // The example is an address customers can use: https, not the API's own localhost.
    expect(commands.readme).toMatch(/^PUBLIC_URL=https:\/\/(?!localhost)[a-z0-9.-]+ /);
  });

  it('health-checks what the proxy waits for', () => {
    for (const name of ['api1', 'api2']) {
      expect(services[name].healthcheck.test.join(' ')).toContain('/api/health');
      expect(services.proxy.depends_on[name].condition).toBe('service_healthy');
    }
  });
});

describe('docker/haproxy.cfg', () => {
  const cfg = readFileSync(join(dockerDir, 'haproxy.cfg'), 'utf8');

  // test/scale-out.e2e-spec.ts runs this very file in front of two API processes.
  it('is a valid HAProxy configuration', () => {
    const out = execFileSync('haproxy', ['-c', '-f', join(dockerDir, 'haproxy.cfg')], {
      env: { ...process.env, LISTEN: '127.0.0.1:1', API1: '127.0.0.1:2', API2: '127.0.0.1:3' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toContain('Configuration file is valid');
  });

  it('drops a client-sent X-Forwarded-For before adding the real peer, keeps socket.io sticky and checks health', () => {
    expect(cfg).toMatch(/http-request del-header X-Forwarded-For[\s\S]*option forwardfor/);
    expect(cfg).toMatch(/cookie SRVID insert/);
    expect(cfg).toMatch(/option httpchk GET \/api\/health/);
    expect(cfg).toMatch(/option redispatch/);
  });
});

describe('docker/haproxy.cfg request log', () => {
  const apis: Server[] = [];
  afterAll(async () => {
    await stopAllSpawned();
    await Promise.all(apis.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  // Two stand-ins for the API instances (the log is the proxy's own): 200 on everything.
  const api = async () => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apis.push(server);
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('logs each request with the path only: no query string, no success token', async () => {
    const proxy = await startHaproxy(await api(), await api());
    const pageToken = randomBytes(32).toString('base64url');
    const apiToken = randomBytes(32).toString('base64url');
    const customerToken = randomBytes(32).toString('base64url');
    expect((await httpFrom('127.0.0.1', `${proxy.url}/success/windows?token=${pageToken}`)).status).toBe(200);
    expect((await httpFrom('127.0.0.1', `${proxy.url}/api/success-token/${apiToken}`)).status).toBe(200);
    expect((await httpFrom('127.0.0.1', `${proxy.url}/my-licences?token=${customerToken}&x=1`)).status).toBe(200);
    const log = () => proxy.process.output();
    await waitUntil('the three requests in the proxy log', () => log().includes('GET /my-licences HTTP/1.1'), {
      processes: [proxy.process],
    });
    expect(log()).toContain('"GET /success/windows HTTP/1.1"');
    expect(log()).toContain('"GET /api/success-token/[token] HTTP/1.1"');
    expect(log()).toMatch(/127\.0\.0\.1:\d+ \[[^\]]+\] web api\/api[12] [-\d/]+ 200 /);
    for (const secret of [pageToken, apiToken, customerToken, 'token=']) expect(log()).not.toContain(secret);
  });
});
