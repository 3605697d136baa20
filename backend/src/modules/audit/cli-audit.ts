import { DatabaseService } from '../../database/database.service';
import { AuditRepository } from './audit.repository';
import { AuditEntry, AuditService } from './audit.service';

/**
 * The admin CLI's audit trail. The CLI runs without Nest, so it has no event publisher and no listeners: it writes
 * its `cli.*` rows through this recorder (inside the command's transaction when it runs in one), marked `via: 'cli'` (docs/architecture.md "Events and who listens").
 */
export function cliAuditRecorder(database: DatabaseService): (entry: AuditEntry) => Promise<void> {
  const audit = new AuditService(new AuditRepository(database), database);
  return (entry) => audit.record({ ...entry, details: { ...entry.details, via: 'cli' } });
}
