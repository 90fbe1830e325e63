// One jest run, three projects: unit specs beside the code, integration specs against real
// Postgres and NATS, and end-to-end specs that speak HTTP to the gateway.
const swc = ['@swc/jest', { swcrc: false, ...require('./scripts/swc-options') }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@bastion/([a-z-]+)$': '<rootDir>/libs/$1/src' },
  setupFiles: ['reflect-metadata'],
};
module.exports = {
  // A busy machine (or CI) can take seconds to start a set of services: hooks and tests get room.
  testTimeout: 30_000,
  // Integration and e2e files share one NATS, where services answer on fixed subjects: run files one
  // at a time so a test that stops a service sees it gone.
  maxWorkers: 1,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/*/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs}/*/test/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
};
