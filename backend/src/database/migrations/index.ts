import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { SeedProducts1763700000001 } from './1763700000001-seed-products';
import { AdminSearchTrigramIndexes1763700000410 } from './1763700000410-admin-search-trigram-indexes';

/** Listed explicitly so the same list works from TypeScript (tests, CLI) and from the compiled build. */
export const MIGRATIONS = [InitialSchema1763700000000, SeedProducts1763700000001, AdminSearchTrigramIndexes1763700000410];
