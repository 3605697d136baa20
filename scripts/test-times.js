#!/usr/bin/env node
// Each tier's files, tests and file-seconds from a Jest JSON report, and the run's wall time (docs/testing.md
// "Time per tier"): `npm test -- --json --outputFile=/tmp/run.json`, then `node scripts/test-times.js /tmp/run.json`.
// The ten slowest files follow the table.
const { readFileSync } = require('fs');
const { relative } = require('path');

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/test-times.js <jest --json report>');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const root = process.cwd();

/** The jest project a test file belongs to, by its path (jest.config.js's roots and patterns). */
function tier(path) {
  if (path.startsWith('test/browser/')) return 'browser';
  if (path.startsWith('test/medium/')) return 'medium';
  if (path.startsWith('test/')) return 'e2e';
  if (path.startsWith('frontend/')) return 'web';
  return 'unit';
}

const tiers = new Map();
const files = [];
for (const result of report.testResults) {
  const path = relative(root, result.name);
  const seconds = (result.endTime - result.startTime) / 1000;
  const tests = result.assertionResults.length;
  files.push({ path, seconds });
  const row = tiers.get(tier(path)) ?? { files: 0, tests: 0, seconds: 0 };
  row.files += 1;
  row.tests += tests;
  row.seconds += seconds;
  tiers.set(tier(path), row);
}

const wall = (Math.max(...report.testResults.map((r) => r.endTime)) - report.startTime) / 1000;
console.log('| tier | files | tests | file-seconds |');
console.log('|---|---|---|---|');
for (const name of ['unit', 'medium', 'e2e', 'web', 'browser']) {
  const row = tiers.get(name);
  if (row) console.log(`| ${name} | ${row.files} | ${row.tests} | ${Math.round(row.seconds)} |`);
}
console.log(
  `| whole run (wall) | ${report.numTotalTests} tests | ${report.numFailedTests} failed | ${Math.round(wall)} s |`,
);
console.log('\nslowest files:');
for (const { path, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) {
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${path}`);
}
