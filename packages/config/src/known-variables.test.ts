import { describe, expect, it } from "vitest";
import { knownEnvironmentVariables } from "./known-variables.ts";

describe("knownEnvironmentVariables", () => {
  const known = knownEnvironmentVariables();

  it("lists what loadConfig reads, the secrets and the branch-only variables included", () => {
    for (const name of [
      "PORT",
      "REDIS_URL",
      "ADMIN_API_KEY",
      "CUSTOMER_TOKEN_SECRET",
      "ADMISSION_TOKEN_SECRET",
      "FLOODGATE_WORKER_INDEX",
      "PG_KEEPALIVE_MS",
      "CUSTOMER_JWT_ALGORITHMS",
    ]) {
      expect(known).toContain(name);
    }
  });

  it("lists variable names only, each once", () => {
    expect(known.every((name) => /^[A-Z][A-Z0-9_]*$/.test(name))).toBe(true);
    expect(new Set(known).size).toBe(known.length);
    expect(known).not.toContain("NODE_ENV");
  });
});
