/**
 * Where work is handed to the job processors: Bull on Redis when REDIS_URL is set, the API process
 * itself otherwise. Callers never wait on it and it never throws: a job that cannot be queued is
 * found again by the pending-mail sweep, because the database row is the source of truth.
 */
export abstract class JobQueue {
  abstract enqueueRedemptionMail(redemptionId: string): void;
}
