import { totalmem } from 'os';
import { embeddedPostgresSettings, usableMemory } from './embedded-postgres';

const GB = 1024 * 1024 * 1024;

describe('the embedded PostgreSQL settings', () => {
  it('gives shared buffers a quarter of the usable memory, never under 128 MB nor over 2 GB', () => {
    expect(embeddedPostgresSettings(4 * GB).shared_buffers).toBe('1024MB');
    expect(embeddedPostgresSettings(6 * GB).shared_buffers).toBe('1536MB');
    expect(embeddedPostgresSettings(256 * 1024 * 1024).shared_buffers).toBe('128MB');
    expect(embeddedPostgresSettings(64 * GB).shared_buffers).toBe('2048MB');
  });

  it('checkpoints every 15 minutes or 4 GB of WAL', () => {
    expect(embeddedPostgresSettings(8 * GB)).toMatchObject({ max_wal_size: '4GB', checkpoint_timeout: '15min' });
  });

  it('reads the usable memory as a positive number of bytes, no more than the machine has', () => {
    const memory = usableMemory();
    expect(memory).toBeGreaterThan(0);
    expect(memory).toBeLessThanOrEqual(totalmem());
  });
});
