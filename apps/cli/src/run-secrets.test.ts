import { ADMIN_API_KEY_PATTERN, ADMISSION_TOKEN_SECRET_PATTERN, loadConfig } from "@floodgate/config";
import { describe, expect, it } from "vitest";
import { adminKeyForRun, admissionSecretForRun } from "./run-secrets.ts";

describe("secrets for a run", () => {
  it("pass configured values through unchanged", () => {
    expect(adminKeyForRun("configured-admin-key-1234")).toEqual({
      key: "configured-admin-key-1234",
      generated: false,
    });
    const secret = "s".repeat(40);
    expect(admissionSecretForRun(secret)).toEqual({ key: secret, generated: false });
  });

  it("generate fresh values the intake's configuration accepts when none is set", () => {
    const first = adminKeyForRun(null);
    expect(first.generated).toBe(true);
    expect(first.key).toMatch(ADMIN_API_KEY_PATTERN);
    expect(first.key).not.toBe(adminKeyForRun(null).key);
    const secret = admissionSecretForRun(null).key;
    expect(secret).toMatch(ADMISSION_TOKEN_SECRET_PATTERN);
    expect(secret).not.toBe(admissionSecretForRun(null).key);
    expect(loadConfig({ ADMIN_API_KEY: first.key, ADMISSION_TOKEN_SECRET: secret })).toMatchObject({
      adminApiKey: first.key,
      admissionTokenSecret: secret,
    });
  });
});
