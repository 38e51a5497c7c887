import { defineConfig } from "vitest/config";
import { clusterSuites } from "./packages/test-fixtures/src/cluster-suites.ts";

// One run for the whole repo: every test file talks to the real Redis and Postgres, isolated by its own key
// prefix and databases (packages/test-fixtures), so files can run in parallel.
//
// Two projects share the run and its two workers (maxWorkers applies to the whole run, not per project):
// "single" is every test file against the shared Redis; "cluster" runs the files listed in
// packages/test-fixtures/src/cluster-suites.ts a second time, against one Redis Cluster (3 masters, 3
// replicas) that its global setup starts only when one of them is to run. Alone: vitest run --project cluster.
const perFile = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: "forks",
} as const;

export default defineConfig({
  test: {
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        test: {
          ...perFile,
          name: "single",
          include: [
            "apps/*/src/**/*.test.ts",
            "apps/*/test/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
            "packages/*/test/**/*.test.ts",
            "bench/test/**/*.test.ts",
            "infra/test/**/*.test.ts",
          ],
        },
      },
      {
        test: {
          ...perFile,
          name: "cluster",
          include: clusterSuites,
          env: { FLOODGATE_TEST_REDIS: "cluster" },
          globalSetup: ["./packages/test-fixtures/src/cluster-global-setup.ts"],
          setupFiles: ["./packages/test-fixtures/src/cluster-test-setup.ts"],
        },
      },
    ],
  },
});
