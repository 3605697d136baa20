// One `npm test` runs every suite: backend unit specs, API end-to-end specs on real PostgreSQL/Redis/SMTP,
// frontend component tests (jsdom) and real-browser flows (Debian's Chromium through playwright-core).
const tsJest = ['ts-jest', { diagnostics: false }];
const tsJestWeb = ['ts-jest', { diagnostics: false, tsconfig: '<rootDir>/frontend/tsconfig.test.json' }];

module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/backend'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.e2e-spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
    },
    {
      displayName: 'web',
      testEnvironment: '<rootDir>/frontend/src/test/jsdom-environment.js',
      roots: ['<rootDir>/frontend/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      transform: { '^.+\\.tsx?$': tsJestWeb },
      setupFilesAfterEnv: ['<rootDir>/frontend/src/test/setup.ts'],
      moduleNameMapper: {
        '\\.(css|less|scss)$': '<rootDir>/frontend/src/test/styleMock.js',
        '\\.(png|jpe?g|gif|svg|webp|ico|woff2?)$': '<rootDir>/frontend/src/test/fileMock.js',
      },
    },
    {
      displayName: 'browser',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/browser'],
      testMatch: ['**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.ts',
      transform: { '^.+\\.ts$': tsJest },
    },
  ],
};
