#!/usr/bin/env node
// `npm start` / `npm run worker` / `npm run admin`: builds what is missing or out of date, then runs it.
'use strict';
const { execFileSync } = require('child_process');
const { existsSync, readdirSync, statSync } = require('fs');
const { join } = require('path');

const root = join(__dirname, '..');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function newestMtime(dir) {
  if (!statSync(dir).isDirectory()) return statSync(dir).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function stale(output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((src) => existsSync(src) && newestMtime(src) > built);
}

function run(args) {
  execFileSync(npx, args, { cwd: root, stdio: 'inherit' });
}

const backendEntry = join(root, 'dist', 'backend', 'src', 'main.js');
if (stale(backendEntry, [join(root, 'backend', 'src')])) {
  console.log('Building the API...');
  run(['tsc', '-p', 'tsconfig.build.json']);
}

const args = process.argv.slice(2);
const cli = args[0] === '--admin-cli';
if (!cli && !args.includes('--worker')) {
  const frontendIndex = join(root, 'frontend', 'dist', 'index.html');
  if (existsSync(join(root, 'frontend', 'index.html')) && stale(frontendIndex, [join(root, 'frontend', 'src'), join(root, 'frontend', 'index.html')])) {
    console.log('Building the web app...');
    run(['vite', 'build', '--config', 'frontend/vite.config.mts', '--logLevel', 'warn']);
  }
}

if (cli) {
  const entry = join(root, 'dist', 'backend', 'src', 'cli.js');
  process.argv = [process.argv[0], entry, ...args.slice(1)];
  require(entry);
} else {
  require(backendEntry);
}
