import { Global, Injectable, Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { DatabaseService } from '../database/database.service';
import { DomainEventMap, DomainEventName } from './domain-events';

/**
 * When a listener runs:
 * - `in-transaction`: at once, awaited, inside the publisher's transaction when it publishes inside one
 *   (`DatabaseService.current` is that transaction's manager): what it writes commits or rolls back with the write.
 *   Its error is the publisher's error (inside a transaction: the transaction rolls back).
 * - `after-commit`: once the publisher's transaction committed (awaited before `transaction()` resolves), never
 *   when it rolled back; at once outside a transaction. Its error is logged, never the publisher's.
 */
export type ListenerPhase = 'in-transaction' | 'after-commit';

const channel = (phase: ListenerPhase, name: DomainEventName) => `${phase}:${name}`;

/**
 * Marks a listener method of a provider: `(payload, name) => …` for each of `names`, in `phase`. The method's
 * payload type must fit every named event's (checked by the compiler).
 */
export function OnDomainEvent<K extends DomainEventName>(names: K | readonly K[], phase: ListenerPhase) {
  const list = (Array.isArray(names) ? names : [names]) as K[];
  return (
    target: object,
    key: string | symbol,
    descriptor: { value?: (payload: DomainEventMap[K], name: K) => unknown },
  ): void => {
    // One registration per event: the emitter takes an array of names as one namespaced name (wildcards only).
    for (const name of list) {
      // In the transaction, a failed listener fails the write; after the commit it is logged by the emitter.
      OnEvent(channel(phase, name), { suppressErrors: phase === 'after-commit' })(
        target,
        key,
        descriptor as PropertyDescriptor,
      );
    }
  };
}

/** Where services say what happened (docs/architecture.md "Events and who listens"). */
@Injectable()
export class DomainEvents {
  constructor(
    private readonly emitter: EventEmitter2,
    private readonly database: DatabaseService,
  ) {}

  /**
   * Runs the event's in-transaction listeners now (their errors are thrown here), and its after-commit listeners
   * once the active transaction committed, or now outside one. Publish once, from the code that did the work.
   */
  async publish<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): Promise<void> {
    await this.emitter.emitAsync(channel('in-transaction', name), payload, name);
    await this.database.afterCommit(() => this.emitter.emitAsync(channel('after-commit', name), payload, name));
  }
}

/** The publisher, for every module (global); the listeners live in the listening modules. */
@Global()
@Module({
  imports: [EventEmitterModule.forRoot({ global: true })],
  providers: [DomainEvents],
  exports: [DomainEvents],
})
export class DomainEventsModule {}
