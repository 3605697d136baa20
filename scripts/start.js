#!/usr/bin/env node
// `npm start` / `npm run worker` / `npm run admin`: builds what is missing or out of date, then runs it.
'use strict';
const { execFileSync } = require('child_process');
const { existsSync } = require('fs');
const { join } = require('path');
const { stale } = require('./build-state');

const root = join(__dirname, '..');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

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
  if (
    existsSync(join(root, 'frontend', 'index.html')) &&
    stale(
      frontendIndex,
      ['src', 'build', 'public', 'index.html', 'vite.config.mts'].map((f) => join(root, 'frontend', f)),
    )
  ) {
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
