import { createServer } from 'http';
import { AddressInfo } from 'net';
import { join } from 'path';
import { Client } from 'pg';
import type { PgCluster } from './pg-cluster';
import { httpFrom, Spawned, spawnTracked, waitUntil } from './processes';
import { freePort } from './smtp';

export const HAPROXY_CONFIG = join(__dirname, '..', '..', 'docker', 'haproxy.cfg');

export interface TestHaproxy {
  url: string;
  process: Spawned;
}

/** The sticky-session cookie HAProxy sets (`cookie SRVID insert`): which API answered. */
export function servedBy(headers: Record<string, string | string[] | undefined>): string | undefined {
  const cookies = ([] as string[]).concat(headers['set-cookie'] ?? []);
  return cookies.map((c) => /^SRVID=([^;]+)/.exec(c)?.[1]).find(Boolean);
}

/**
 * Debian's HAProxy (`haproxy`, installed by .ci/run) with the shipped docker/haproxy.cfg, listening on a free
 * loopback port in front of the two given API addresses. Resolves once both APIs answer through it.
 */
export async function startHaproxy(api1: string, api2: string): Promise<TestHaproxy> {
  const port = await freePort();
  const listen = `127.0.0.1:${port}`;
  const proxy = spawnTracked('haproxy', 'haproxy', ['-db', '-f', HAPROXY_CONFIG], {
    PATH: process.env.PATH,
    LISTEN: listen,
    API1: api1,
    API2: api2,
  });
  const url = `http://${listen}`;
  const seen = new Set<string>();
  await waitUntil(
    'both APIs to answer through HAProxy',
    async () => {
      const res = await httpFrom('127.0.0.1', `${url}/api/health`);
      const server = res.status === 200 ? servedBy(res.headers) : undefined;
      if (server) seen.add(server);
      return seen.size === 2;
    },
    { processes: [proxy] },
  );
  return { url, process: proxy };
}

export const HAPROXY_POSTGRES_CONFIG = join(__dirname, '..', '..', 'docker', 'haproxy-postgres.cfg');

export interface TestPostgresProxy {
  port: number;
  /** A connection URL to `database` through the proxy. */
  url(database: string): string;
  process: Spawned;
  close(): Promise<void>;
}

/**
 * HAProxy with the shipped docker/haproxy-postgres.cfg in front of two PostgreSQL nodes (test/helpers/pg-cluster.ts).
 * Each node's health check is a small HTTP server standing in for Patroni's REST API: GET /primary answers 200 while
 * the node accepts connections and is not in recovery, 503 otherwise. Resolves once HAProxy has marked the nodes
 * that are no primary down and a connection through it reaches the primary.
 */
export async function startPostgresProxy(nodes: [PgCluster, PgCluster]): Promise<TestPostgresProxy> {
  const checks = await Promise.all(
    nodes.map(async (node) => {
      const server = createServer((req, res) => {
        void node.isPrimary().then((primary) => {
          res.statusCode = req.url === '/primary' && primary ? 200 : 503;
          res.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  const checkPort = (i: number) => String((checks[i].address() as AddressInfo).port);
  const port = await freePort();
  const proxy = spawnTracked('haproxy-postgres', 'haproxy', ['-db', '-f', HAPROXY_POSTGRES_CONFIG], {
    PATH: process.env.PATH,
    LISTEN: `127.0.0.1:${port}`,
    PG1: `127.0.0.1:${nodes[0].port}`,
    PG2: `127.0.0.1:${nodes[1].port}`,
    PG1_CHECK: checkPort(0),
    PG2_CHECK: checkPort(1),
  });
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // HAProxy starts with every server up; a node that is no primary is marked down after its first checks.
  const primaries = await Promise.all(nodes.map((node) => node.isPrimary()));
  await waitUntil(
    'HAProxy to mark the nodes that are no primary down',
    () => primaries.every((primary, i) => primary || proxy.output().includes(`Server postgres/pg${i + 1} is DOWN`)),
    { processes: [proxy] },
  );
  await waitUntil(
    'a connection through HAProxy to reach the primary',
    async () => {
      const client = new Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.query('SELECT NOT pg_is_in_recovery() AS primary')).rows[0].primary === true;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    { processes: [proxy] },
  );
  return {
    port,
    url,
    process: proxy,
    close: async () => {
      await proxy.stop();
      await Promise.all(checks.map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}
