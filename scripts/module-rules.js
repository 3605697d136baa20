// The backend's module rules as data: docs/architecture.md's table "Modules, their tables and the arrows between
// them" says which modules each module may import, and .dependency-cruiser.js turns it into rules that
// `npm run deps:rules` (in `npm run check`) and test/module-rules.e2e-spec.ts enforce. The doc and the tool read one
// table, so they cannot disagree: an import the table does not allow fails until the table says so.
'use strict';
const { readFileSync, readdirSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const DOC = 'docs/architecture.md';
const HEADER = /^\|\s*module\s*\|\s*owns[^|]*\|\s*may import\s*\|/;
const KNOWN_CYCLES = /^\*\*Known cycles\*\*:(.*)$/m;

/** The cells of a Markdown table row (`| a | b |`), trimmed; `\|` inside a cell stays in it. */
function cells(line) {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** A cell's module names: `a, b` (backticks allowed) or `–` for none. */
function names(cell, where) {
  if (cell === '–' || cell === '-') return [];
  return cell.split(',').map((part) => {
    const name = part.trim().replace(/^`(.*)`$/, '$1');
    if (!/^[a-z][a-z-]*$/.test(name)) throw new Error(`${DOC}: ${where}: "${part.trim()}" is not a module name`);
    return name;
  });
}

/**
 * Reads the module table and the known cycles from the doc's text, and checks them against the module folders:
 * every folder of backend/src/modules has one row, every name in the table is a folder, and the table's arrows make
 * no cycle but the known ones.
 * @returns {{ modules: Record<string, string[]>, knownCycles: string[][] }}
 */
function parseModuleRules(text, folders) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => HEADER.test(line));
  if (start < 0) throw new Error(`${DOC}: no table whose header is "| module | owns … | may import | …"`);
  const column = cells(lines[start]).findIndex((cell) => cell === 'may import');
  const modules = {};
  for (let i = start + 2; i < lines.length && lines[i].trim().startsWith('|'); i++) {
    const row = cells(lines[i]);
    const [name] = names(row[0], `line ${i + 1}`);
    if (modules[name]) throw new Error(`${DOC}: line ${i + 1}: a second row for module ${name}`);
    modules[name] = names(row[column] ?? '', `line ${i + 1} (${name})`);
  }
  for (const folder of folders) {
    if (!modules[folder]) throw new Error(`${DOC}: backend/src/modules/${folder} has no row in the module table`);
  }
  for (const [name, allowed] of Object.entries(modules)) {
    for (const other of [name, ...allowed]) {
      if (!folders.includes(other)) throw new Error(`${DOC}: module ${other} (row ${name}) is no folder of modules/`);
    }
    if (allowed.includes(name)) throw new Error(`${DOC}: row ${name} names itself`);
  }
  const known = KNOWN_CYCLES.exec(text);
  const knownCycles = known ? [...known[1].matchAll(/`([^`]+)`/g)].map((m) => m[1].split(/\s*→\s*/)) : [];
  const key = (members) => [...new Set(members)].sort().join(',');
  const cycles = cyclesOf(modules);
  for (const cycle of cycles) {
    if (!knownCycles.some((k) => key(k) === key(cycle))) {
      throw new Error(
        `${DOC}: the module table's arrows make a cycle of ${cycle.join(', ')}; ` +
          'break it in the code, or name it under **Known cycles**',
      );
    }
  }
  for (const k of knownCycles) {
    if (!cycles.some((cycle) => key(k) === key(cycle))) {
      throw new Error(`${DOC}: the known cycle ${k.join(' → ')} is not a cycle of the module table: remove it`);
    }
  }
  return { modules, knownCycles };
}

/** The cycles of an arrow table: its strongly connected components of more than one module (Tarjan's). */
function cyclesOf(arrows) {
  let next = 0;
  const index = {};
  const low = {};
  const stack = [];
  const found = [];
  const visit = (v) => {
    index[v] = low[v] = next++;
    stack.push(v);
    for (const w of arrows[v] ?? []) {
      if (index[w] === undefined) {
        visit(w);
        low[v] = Math.min(low[v], low[w]);
      } else if (stack.includes(w)) {
        low[v] = Math.min(low[v], index[w]);
      }
    }
    if (low[v] === index[v]) {
      const component = stack.splice(stack.indexOf(v));
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of Object.keys(arrows)) if (index[v] === undefined) visit(v);
  return found;
}

/** The rules of the checked-out tree: docs/architecture.md read against backend/src/modules. */
function moduleRules() {
  const folders = readdirSync(join(root, 'backend/src/modules'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  return parseModuleRules(readFileSync(join(root, DOC), 'utf8'), folders);
}

module.exports = { moduleRules, parseModuleRules, cyclesOf };
