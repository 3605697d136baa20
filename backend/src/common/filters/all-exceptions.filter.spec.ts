import { QueryFailedError } from 'typeorm';
import { DATABASE_UNAVAILABLE_MESSAGE, toErrorBody } from './all-exceptions.filter';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('toErrorBody', () => {
  it('answers a lost or refused database connection 503, whatever wraps it', () => {
    for (const err of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P03', 'the database system is starting up'),
      pgError('08006'),
      new Error('Connection terminated unexpectedly'),
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      pgError('ECONNRESET', 'read ECONNRESET'),
      // A pipelined connection (StatementPipeline) that died while its statements were written, or before.
      pgError('EPIPE', 'write EPIPE'),
      new Error('Client has encountered a connection error and is not queryable'),
      new QueryFailedError('SELECT 1', [], pgError('57P01')),
    ]) {
      expect(toErrorBody(err)).toEqual({
        statusCode: 503,
        message: DATABASE_UNAVAILABLE_MESSAGE,
        error: 'Service Unavailable',
      });
    }
  });

  it('keeps every other failure a generic 500 (a failed statement, a bug)', () => {
    for (const err of [
      new QueryFailedError('SELECT 1', [], pgError('23505', 'duplicate key')),
      pgError('40P01', 'deadlock detected'),
      new TypeError('x is undefined'),
      'a string',
    ]) {
      expect(toErrorBody(err)).toMatchObject({ statusCode: 500, error: 'Internal Server Error' });
    }
  });
});
