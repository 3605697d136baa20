import 'reflect-metadata';
import 'dotenv/config';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './backend/src/database/data-source-options';

// The TypeORM CLI's data source (`npm run migration:run`, `migration:generate`). The app itself runs
// migrations on start; with no DATABASE_URL, start the app once so its embedded database exists.
const url = process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5433/voucher';

// The migrations are the app's own list (backend/src/database/migrations/index.ts), not a glob: a glob would take
// every exported function of a migration file (shared SQL builders) for a migration class.
export default new DataSource(dataSourceOptions(url));
