import { defineConfig } from "vitest/config";

// One run for the whole repo: every test file talks to the real Redis and Postgres, isolated by its own key
// prefix and databases (packages/test-fixtures), so files can run in parallel.
export default defineConfig({
  test: {
    include: [
      "apps/*/src/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "bench/test/**/*.test.ts",
      "infra/test/**/*.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
  },
});
