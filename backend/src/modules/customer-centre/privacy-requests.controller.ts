import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../../common/decorators/require-permissions.decorator';
import { Permission } from '../../common/permissions';
import { AuditLog } from '../audit/audit-log';
import { PRIVACY_ACTIONS } from './access-link.service';
import { PrivacyRequestsResponse } from './dto/customer-centre-responses.dto';

const KIND_OF: Record<string, string> = {
  [PRIVACY_ACTIONS.linkSent]: 'link-sent',
  [PRIVACY_ACTIONS.linkLimit]: 'link-limit',
  [PRIVACY_ACTIONS.dataExport]: 'data-export',
  [PRIVACY_ACTIONS.erasure]: 'erasure',
};
const SHOWN = 200;

/**
 * Settings → Privacy requests (docs/support.md): the licence centre's sign-in links, data exports and erasures with
 * their dates, read from the audit log, never the personal data (the audit rows hold none beyond the customer id).
 */
@ApiTags('settings')
@Controller('admin/privacy-requests')
export class PrivacyRequestsController {
  constructor(private readonly audit: AuditLog) {}

  @RequirePermissions(Permission.SettingsAccess)
  @Get()
  @ApiOperation({ summary: `The latest ${SHOWN} privacy requests of customers (links sent, data exports, erasures)` })
  @ApiOkResponse({ type: PrivacyRequestsResponse })
  async list() {
    const rows = await this.audit.latest(Object.keys(KIND_OF), SHOWN);
    return {
      requests: rows.map((r) => ({
        id: r.id,
        kind: KIND_OF[r.action],
        at: r.createdAt,
        customerId: r.resourceId,
        redemptions: typeof r.details?.redemptions === 'number' ? r.details.redemptions : null,
      })),
    };
  }
}
