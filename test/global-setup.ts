import { buildBackendIfStale } from './helpers/processes';

/**
 * Suites that run the built app (scale-out, demo) need `dist/` up to date: built once here, before any worker
 * starts, so two suites never compile into `dist/` at the same time while the other's processes load it.
 */
export default function buildBackend(): void {
  buildBackendIfStale();
}
