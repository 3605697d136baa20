import { join } from 'path';
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
