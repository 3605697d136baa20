// Whether a build output is older than its sources: `npm start` and the tests that run the built app
// (scale-out suite, browser flows) rebuild only then.
'use strict';
const { existsSync, readdirSync, statSync } = require('fs');
const { join } = require('path');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

/** True when `output` is missing or any file under `sources` (files or folders) changed after it. */
function stale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((src) => newestMtime(src) > built);
}

module.exports = { stale };
