import { ADMIN_API_KEY_PATTERN, loadConfig } from "@floodgate/config";
import { describe, expect, it } from "vitest";
import { adminKeyForRun } from "./admin-key.ts";

describe("adminKeyForRun", () => {
  it("passes a configured ADMIN_API_KEY through unchanged", () => {
    expect(adminKeyForRun("configured-admin-key-1234")).toEqual({
      key: "configured-admin-key-1234",
      generated: false,
    });
  });

  it("generates a fresh key the intake's configuration accepts when none is set", () => {
    const first = adminKeyForRun(null);
    const second = adminKeyForRun(null);
    expect(first.generated).toBe(true);
    expect(first.key).toMatch(ADMIN_API_KEY_PATTERN);
    expect(first.key).not.toBe(second.key);
    expect(loadConfig({ ADMIN_API_KEY: first.key }).adminApiKey).toBe(first.key);
  });
});
