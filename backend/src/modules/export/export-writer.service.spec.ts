import { PassThrough, Readable } from 'stream';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { ExportJob, ExportOutput, ExportWriter } from './export-writer.service';
import { ExportRepository } from './export.repository';

/**
 * A transaction that fails once the whole file went out (its COMMIT: a broken connection) must leave the client a
 * broken-off download, never a file that looks complete, and must not be audited as written. The repository is a
 * fake that runs the writer's callback and then fails as the database would; the rest is the writer itself.
 */
describe('ExportWriter when the transaction fails after the file was written', () => {
  const commitFailed = new Error('Connection terminated unexpectedly');
  const repository = {
    async copyCodes(_codes: unknown, _format: unknown, fn: (found: boolean, open: () => Readable) => Promise<unknown>) {
      await fn(true, () => Readable.from(['AAAA-1111\n', 'BBBB-2222\n']));
      throw commitFailed;
    },
    async streamMarkedRedemptions(
      _selection: unknown,
      fn: (rows: AsyncIterator<Record<string, unknown>>) => Promise<unknown>,
    ) {
      await fn(Readable.from([{ code: 'AAAA-1111' }, { code: 'BBBB-2222' }])[Symbol.asyncIterator]());
      throw commitFailed;
    },
  };
  const published: string[] = [];
  const events = { publish: async (name: string) => void published.push(name) };
  const writer = new ExportWriter(
    repository as unknown as ExportRepository,
    events as unknown as DomainEvents,
    new Clock(),
    { timeZone: 'UTC' } as AppConfig,
  );
  const job = (source: ExportJob['source']): ExportJob => ({
    kind: 'unredeemed-vouchers',
    format: 'csv',
    source,
    columns: [{ key: 'code', header: 'Voucher Code' }],
    emptyMessage: 'No codes',
    details: {},
  });
  const output = () => {
    let opened = false;
    const body = new PassThrough();
    const received: Buffer[] = [];
    body.on('data', (chunk: Buffer) => received.push(chunk));
    const out: ExportOutput = { open: () => (opened = true), body, sent: () => opened };
    return { out, body, text: () => Buffer.concat(received).toString() };
  };

  beforeEach(() => (published.length = 0));

  it.each([
    ['a code-only export (COPY)', job({ codes: { productId: 'p', state: 'unredeemed' } as never })],
    ['a redemption export (cursor)', job({ redemptions: { ids: ['r'] } as never })],
  ])('%s: the response is destroyed, not ended, and nothing is audited as written', async (_name, exportJob) => {
    const { out, body, text } = output();
    let ended = false;
    body.on('end', () => (ended = true));
    await expect(writer.write(exportJob, out, { actorId: 'a' } as never)).rejects.toBe(commitFailed);
    expect(text()).toContain('AAAA-1111');
    expect(body.destroyed).toBe(true);
    expect(body.writableEnded).toBe(false);
    expect(ended).toBe(false);
    expect(published).toEqual([]);
  });
});
