import { checkJobName, defineJob } from './job';
import { JobRegistry } from './job-registry';

describe('job names', () => {
  it('are <module>.<verb>-<object>, and nothing else', () => {
    for (const name of ['mail.send-order-email', 'pool.check', 'customer-centre.sweep-access-links']) {
      expect(checkJobName(name)).toBe(name);
    }
    for (const name of ['send-redemption-mail', 'mail:send', 'Mail.send', 'mail.send.twice', 'mail.', '.send']) {
      expect(() => defineJob(name)).toThrow(`Job name ${name} is not <module>.<verb>-<object>`);
    }
  });

  it('find a job under a former name, and key it by its name', () => {
    const registry = new JobRegistry();
    const key = defineJob<{ id: string }>('things.send', { formerNames: ['send-thing'] });
    registry.register(key, { jobId: ({ id }) => id, handle: async () => undefined });
    expect(registry.get('send-thing')).toBe(registry.get('things.send'));
    expect(registry.get('send-thing').jobId?.({ id: 'a' })).toBe('things.send:a');
    expect(() =>
      registry.register(defineJob('other.send', { formerNames: ['send-thing'] }), { handle: async () => 0 }),
    ).toThrow('Job send-thing is registered twice');
    expect(() => registry.poll({ name: 'relay-things', every: 1000, run: async () => 0 })).toThrow(
      'Job name relay-things is not',
    );
  });
});
