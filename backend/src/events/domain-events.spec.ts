import { Global, Injectable, Module } from '@nestjs/common';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource, EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service';
import { Fact } from './domain-events';
import { DomainEvents, DomainEventsModule, OnDomainEvent } from './domain-events.service';

/**
 * TypeORM's data source without a database: a transaction is its callback, committed when it resolves and rolled back
 * when it throws, each with a manager of its own name; the log says what happened in which order.
 */
class TransactionLog {
  readonly log: string[] = [];
  readonly manager = { name: 'default' } as unknown as EntityManager;
  private count = 0;

  async transaction<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T> {
    const manager = { name: `tx${++this.count}` } as unknown as EntityManager;
    try {
      const result = await fn(manager);
      this.log.push(`commit ${nameOf(manager)}`);
      return result;
    } catch (err) {
      this.log.push(`rollback ${nameOf(manager)}`);
      throw err;
    }
  }
}

const nameOf = (manager: EntityManager) => (manager as unknown as { name: string }).name;

@Injectable()
class Listeners {
  failInTransaction = false;

  constructor(
    private readonly database: DatabaseService,
    private readonly data: TransactionLog,
  ) {}

  @OnDomainEvent('logout', 'in-transaction')
  async inTransaction(fact: Fact, name: 'logout'): Promise<void> {
    await Promise.resolve();
    this.data.log.push(`in-transaction ${name} ${fact.resourceId} on ${nameOf(this.database.current)}`);
    if (this.failInTransaction) throw new Error('listener failed');
  }

  @OnDomainEvent(['logout', 'session.revoke'], 'after-commit')
  afterCommit(fact: Fact, name: 'logout' | 'session.revoke'): void {
    this.data.log.push(`after-commit ${name} ${fact.resourceId} on ${nameOf(this.database.current)}`);
  }
}

@Global()
@Module({
  providers: [
    TransactionLog,
    {
      provide: DatabaseService,
      useFactory: (data: TransactionLog) => new DatabaseService(data as unknown as DataSource),
      inject: [TransactionLog],
    },
  ],
  exports: [DatabaseService, TransactionLog],
})
class FakeDatabaseModule {}

@Module({ imports: [FakeDatabaseModule, DomainEventsModule], providers: [Listeners] })
class TestModule {}

describe('DomainEvents.publish', () => {
  let app: INestApplicationContext;
  let events: DomainEvents;
  let database: DatabaseService;
  let data: TransactionLog;

  beforeEach(async () => {
    app = await NestFactory.createApplicationContext(TestModule, { logger: false });
    events = app.get(DomainEvents);
    database = app.get(DatabaseService);
    data = app.get(TransactionLog);
  });

  afterEach(() => app.close());

  const logout = (sessionId: string) => events.publish('logout', { success: true, resourceId: sessionId });

  it('runs in-transaction listeners on the transaction, after-commit listeners once it committed', async () => {
    await database.transaction(async () => {
      await logout('s1');
      data.log.push('publisher goes on');
    });
    expect(data.log).toEqual([
      'in-transaction logout s1 on tx1',
      'publisher goes on',
      'commit tx1',
      'after-commit logout s1 on default',
    ]);
  });

  it('runs no after-commit listener when the transaction rolls back', async () => {
    await expect(
      database.transaction(async () => {
        await logout('s2');
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(data.log).toEqual(['in-transaction logout s2 on tx1', 'rollback tx1']);
  });

  it('rolls the transaction back when an in-transaction listener fails', async () => {
    app.get(Listeners).failInTransaction = true;
    await expect(database.transaction(() => logout('s3'))).rejects.toThrow('listener failed');
    expect(data.log).toEqual(['in-transaction logout s3 on tx1', 'rollback tx1']);
  });

  it('runs both at once, on the default manager, outside a transaction', async () => {
    await logout('s4');
    expect(data.log).toEqual(['in-transaction logout s4 on default', 'after-commit logout s4 on default']);
  });

  it('gives a listener of several events each of them, with its name', async () => {
    await events.publish('session.revoke', { success: true, resourceId: 's6' });
    await logout('s7');
    expect(data.log).toEqual([
      'after-commit session.revoke s6 on default',
      'in-transaction logout s7 on default',
      'after-commit logout s7 on default',
    ]);
  });

  it('hands an inner transaction’s after-commit listeners to the outer one', async () => {
    await database.transaction(async () => {
      await database.transaction(() => logout('s5'));
      data.log.push('outer goes on');
    });
    expect(data.log).toEqual([
      'in-transaction logout s5 on tx2',
      'commit tx2',
      'outer goes on',
      'commit tx1',
      'after-commit logout s5 on default',
    ]);
  });
});
