import { defineConfig } from 'vitest/config';
import E2eSequencer from './e2e/support/sequencer';

// Four projects: `unit` (pure, co-located), `integration` (real PostgreSQL + NATS, started by
// scripts/infra), `faults` (kill -9 / NATS restarts of a private stack of real processes;
// FAULT_TRIALS per kill point), `e2e` (black box through the gateway; the global setup starts the stack).
export default defineConfig({
  test: {
    // The fuzz spec runs after every other e2e spec (e2e/support/sequencer.ts says why).
    sequence: { sequencer: E2eSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          // scripts/*.test.ts: the scripts `make test` itself relies on (its summary); e2e/support: the e2e client's own behaviour.
          include: ['proto/lib/**/*.test.ts', 'services/*/src/**/*.test.ts', 'scripts/*.test.ts', 'e2e/support/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          // Offline checks of charts/rdm (helm + kubernetes-models from scripts/infra/helm.sh).
          name: 'charts',
          include: ['charts/test/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'integration',
          // charts/test/integration: the image commands of the chart run from a production build.
          include: ['services/*/test/integration/**/*.test.ts', 'charts/test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
      {
        // `make test-migration` (issue 26): a real InvenioRDM (../shared/invenio-reference) seeded,
        // migrated into the e2e stack, compared field by field. Not in `make test`.
        test: {
          name: 'migration',
          include: ['e2e/migration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['e2e/support/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
      {
        // Fault trials (e2e/faults): a private stack whose services a test kills and restarts.
        test: {
          name: 'faults',
          include: ['e2e/faults/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
      {
        // Failure modes of the e2e container runtime (real engine + local images; make test runs
        // it with E2E_RUNTIME=containers after `make images`).
        test: {
          name: 'containers',
          include: ['e2e/containers/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
      {
        // Trials in the kind cluster of scripts/kind/up.sh (`make test-kind`): pod kills through the ingress.
        test: {
          name: 'kind',
          include: ['e2e/kind/**/*.test.ts'],
          environment: 'node',
          testTimeout: 1_800_000,
          hookTimeout: 600_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/specs/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['e2e/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          pool: 'forks',
          fileParallelism: false,
        },
      },
    ],
  },
});
