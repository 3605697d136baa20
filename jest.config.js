// One `npm test` runs every suite: backend unit specs, API end-to-end specs on real PostgreSQL/Redis/SMTP,
// frontend component tests (jsdom) and real-browser flows (Debian's Chromium through playwright-core).
// TypeScript is compiled by SWC; types are checked by `npm run typecheck`, not here. On an empty cache and a quiet
// 2-core machine the whole suite took 611 s under it and 577 s under ts-jest (2026-12-02, `c3ce30a`), where three
// web files failed that pass under SWC and in the browser: the compiler does not decide the suite's time.
const swc = (parser, transform) => [
  '@swc/jest',
  {
    jsc: { target: 'es2022', parser, transform, keepClassNames: true },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const ts = swc(
  { syntax: 'typescript', decorators: true },
  { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
);
const tsx = swc(
  { syntax: 'typescript', tsx: true },
  { react: { runtime: 'automatic' }, useDefineForClassFields: true },
);

// NestJS 12, otplib 13, openid-client 6, oidc-provider 9 (tests) and some of their dependencies ship ES modules
// only. From Node.js 24.9 Jest requires them natively (`npm test` passes --experimental-vm-modules); on older Node.js they are
// turned into CommonJS by test/jest/esm-to-cjs.transformer.js.
const ESM_ONLY_PACKAGES = [
  '@nestjs',
  '@otplib',
  '@scure',
  '@noble',
  'otplib',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'openid-client',
  'oauth4webapi',
  'jose',
  'oidc-provider',
];
const [major, minor] = process.versions.node.split('.').map(Number);
const nativeRequireEsm = major > 24 || (major === 24 && minor >= 9);
const esmPackages = nativeRequireEsm
  ? {}
  : {
      transform: { '/node_modules/.+\\.js$': '<rootDir>/test/jest/esm-to-cjs.transformer.js' },
      transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`],
    };
const node = (transform) => ({
  ...esmPackages,
  transform: { ...transform, ...esmPackages.transform },
});

module.exports = {
  // Every run shuffles the tests of each file (docs/testing.md): a test that needs another to run first fails. A
  // failing test prints the seed and the command that replays its order and its random data.
  randomize: true,
  testTimeout: 60_000,
  // Three files at a time on a 2-core machine: much of an e2e or browser file's time is spent waiting (a sweep's
  // interval, a retry's backoff, a browser's paint), and two workers left the CPU idle meanwhile; three took the
  // suite from 486 s to 385 s here with the CPU ~98% busy (docs/testing.md).
  maxWorkers: 3,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: '<rootDir>/test/jest/seeded-environment.js',
      roots: ['<rootDir>/backend'],
      testMatch: ['**/*.spec.ts'],
      ...node({ '^.+\\.ts$': ts }),
    },
    {
      // Services and repositories on a real PostgreSQL database of each file's own, without HTTP (docs/testing.md).
      displayName: 'medium',
      testEnvironment: '<rootDir>/test/jest/seeded-environment.js',
      roots: ['<rootDir>/test/medium'],
      testMatch: ['**/*.medium-spec.ts'],
      globalSetup: '<rootDir>/test/medium/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      setupFiles: ['<rootDir>/test/jest/password-cost.ts'],
      ...node({ '^.+\\.ts$': ts }),
    },
    {
      displayName: 'e2e',
      testEnvironment: '<rootDir>/test/jest/seeded-environment.js',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      setupFiles: ['<rootDir>/test/jest/password-cost.ts'],
      ...node({ '^.+\\.ts$': ts }),
    },
    {
      displayName: 'web',
      testEnvironment: '<rootDir>/frontend/src/test/jsdom-environment.js',
      roots: ['<rootDir>/frontend/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      transform: { '^.+\\.tsx?$': tsx },
      setupFilesAfterEnv: ['<rootDir>/frontend/src/test/setup.ts'],
      moduleNameMapper: {
        '\\.(css|less|scss)$': '<rootDir>/frontend/src/test/styleMock.js',
        '\\.(png|jpe?g|gif|svg|webp|ico|woff2?)$': '<rootDir>/frontend/src/test/fileMock.js',
      },
    },
    {
      displayName: 'browser',
      // A flow of many screens (sign-in, enrolment, axe on each step) on a loaded 2-core machine can take minutes.
      testTimeout: 180_000,
      testEnvironment: '<rootDir>/test/jest/seeded-environment.js',
      roots: ['<rootDir>/test/browser'],
      testMatch: ['**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      setupFiles: ['<rootDir>/test/jest/password-cost.ts'],
      ...node({ '^.+\\.ts$': ts }),
    },
  ],
};
