import { AppsumoAdapter } from './appsumo-adapter';
import type { AdapterKind } from './entities/marketplace-connection.entity';
import { GenericMarketplaceAdapter, MarketplaceAdapter } from './marketplace-adapter';

const ADAPTERS: Record<AdapterKind, MarketplaceAdapter> = {
  generic: new GenericMarketplaceAdapter(),
  appsumo: new AppsumoAdapter(),
};

/** A connection's adapter (docs/product.md §24.4). */
export function adapterFor(kind: AdapterKind): MarketplaceAdapter {
  return ADAPTERS[kind];
}
