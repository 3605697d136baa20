#!/usr/bin/env node
// Reports the JavaScript a first visit to the redeem page downloads (entry chunk plus the redeem page's chunk and
// everything they import statically), gzipped like Vite's build report. `--check` fails above the 200 KB budget.
'use strict';
const { readFileSync } = require('fs');
const { join } = require('path');
const { gzipSync } = require('zlib');

const BUDGET_BYTES = 200 * 1024;
const dist = join(__dirname, '..', 'frontend', 'dist');

function firstLoad(manifest, entries) {
  const files = new Set();
  const visit = (key) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  entries.forEach(visit);
  return [...files];
}

const readManifest = () => JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));

/** The files a first visit to a page loads: the entry, the page's lazily loaded module (`src/...`) and what they import. */
function pageFirstLoad(module) {
  return firstLoad(readManifest(), ['index.html', module]);
}

function redeemPageFirstLoad() {
  const files = pageFirstLoad('src/features/redeem/RedeemPage.tsx');
  const sizes = files.map((file) => {
    const code = readFileSync(join(dist, file));
    return { file, bytes: code.length, gzip: gzipSync(code, { level: 9 }).length };
  });
  return { sizes, totalGzip: sizes.reduce((sum, s) => sum + s.gzip, 0), budget: BUDGET_BYTES };
}

module.exports = { redeemPageFirstLoad, pageFirstLoad, BUDGET_BYTES };

if (require.main === module) {
  const { sizes, totalGzip } = redeemPageFirstLoad();
  for (const s of sizes) {
    console.log(
      `${s.file.padEnd(44)} ${(s.bytes / 1024).toFixed(1).padStart(8)} kB  gzip ${(s.gzip / 1024).toFixed(1).padStart(7)} kB`,
    );
  }
  console.log(
    `Redeem page first-load JS: ${(totalGzip / 1024).toFixed(1)} kB gzipped (budget ${BUDGET_BYTES / 1024} kB)`,
  );
  if (process.argv.includes('--check') && totalGzip > BUDGET_BYTES) process.exit(1);
}
