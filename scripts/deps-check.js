#!/usr/bin/env node
// `npm run deps:check`: the direct dependencies a major version (or more) behind their latest release,
// with the reason docs/dependencies.md gives for each. Information only: it always exits 0.
'use strict';
const { execFileSync } = require('child_process');
const { readFileSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
let outdated;
try {
  outdated = execFileSync('npm', ['outdated', '--json'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
} catch (err) {
  outdated = err.stdout; // npm outdated exits 1 when anything is outdated
}
const packages = JSON.parse(outdated || '{}');
const major = (version) => Number(String(version).split('.')[0]);
const docs = readFileSync(join(root, 'docs', 'dependencies.md'), 'utf8');
/** The "Held back" table row of a package in docs/dependencies.md, if there is one. */
const reason = (name) => {
  const row = docs.split('\n').find((line) => line.startsWith(`| \`${name}\` |`) && line.includes('held'));
  if (!row) return 'not explained in docs/dependencies.md';
  const cells = row.split(/(?<!\\)\|/); // a cell may hold an escaped \|
  return cells[cells.length - 2].replace(/\\\|/g, '|').trim();
};

const behind = Object.entries(packages).filter(([, p]) => p.current && p.latest && major(p.latest) > major(p.current));
if (!behind.length) {
  console.log('Every direct dependency is on the major version of its latest release.');
} else {
  console.log(`${behind.length} direct dependencies are a major version behind their latest release:\n`);
  for (const [name, p] of behind) console.log(`  ${name} ${p.current} -> ${p.latest}\n    ${reason(name)}`);
}
