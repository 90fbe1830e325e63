// One jest run, four projects: unit specs beside the code, service specs (a service over in-memory
// fakes of its repositories and publishers), integration specs against real
// Postgres and NATS, and end-to-end specs that speak HTTP to the gateway. Files run in parallel:
// global-setup gives each worker its own database and NATS (see test/global-setup.ts).
const { availableParallelism } = require('node:os');

const swc = ['@swc/jest', { swcrc: false, ...require('./scripts/swc-options') }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@bastion/([a-z-]+)$': '<rootDir>/libs/$1/src' },
  setupFiles: ['reflect-metadata'],
};
const withInfra = {
  ...common,
  testEnvironment: '<rootDir>/test/worker-environment.ts',
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
module.exports = {
  // Most integration time is spent waiting on Postgres and NATS, so more workers than cores pays.
  // Hooks start whole services; on a loaded machine (or beside other workers) that takes seconds.
  testTimeout: 30_000,
  maxWorkers: Number(process.env.JEST_MAX_WORKERS) || Math.max(2, availableParallelism()),
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs}/*/src/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.service\\.spec\\.ts$'],
    },
    // A service (`*.service.spec.ts`) over in-memory fakes of its repositories and publishers.
    { ...common, displayName: 'service', testMatch: ['<rootDir>/apps/*/src/**/*.service.spec.ts'] },
    { ...withInfra, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/*/test/**/*.int-spec.ts'] },
    { ...withInfra, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
};
