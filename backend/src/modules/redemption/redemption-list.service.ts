import { pagination } from '../../database/list/list-rules';
import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ListRedemptionsQuery } from './dto/redemption-admin.dto';
import { REDEMPTION_ADMIN_MESSAGES } from './redemption-admin.messages';
import { AdminRedemptionView, RedemptionListRepository } from './redemption-list.repository';

/** docs/product.md §4.9 redemption lists and details for the admin, fast at a million rows (the repository says how). */
@Injectable()
export class RedemptionListService {
  constructor(
    private readonly lists: RedemptionListRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A page of redemptions; `hasNextPage` is exact, `totalCount` exact up to LIST_EXACT_COUNT_LIMIT matches
   * and PostgreSQL's estimate beyond (`totalCountExact: false`). Keys in clear: the response type declares them
   * inventory, so the InventoryInterceptor masks them for a caller without `licenses.view`.
   */
  async list(query: ListRedemptionsQuery) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 50;
    const { redemptions, hasNextPage, counted } = await this.lists.page(
      { showExported: query.showExported ?? false, emailStatus: query.emailStatus, search: query.search },
      { limit, offset: (page - 1) * limit, exactLimit: this.config.listExactCountLimit },
    );
    return {
      redemptions,
      pagination: pagination(page, limit, redemptions.length, hasNextPage, counted),
    };
  }

  /** One redemption (its key in clear, masked on the way out like the list's). */
  async findOne(id: string): Promise<AdminRedemptionView> {
    const view = await this.lists.findView(id);
    if (!view) throw new NotFoundException(REDEMPTION_ADMIN_MESSAGES.notFound);
    return view;
  }
}
