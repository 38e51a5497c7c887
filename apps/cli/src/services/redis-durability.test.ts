// `start` says what a 202 survives on the Redis it uses, and warns when a restart of Redis would lose them.
import { describe, expect, it } from "vitest";
import { durabilityLine, readRedisDurability } from "./redis-durability.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

describe("the Redis durability line", () => {
  it("warns when Redis persists nothing", () => {
    const { warn, line } = durabilityLine({ appendonly: "no", appendfsync: "everysec", save: "" });
    expect(warn).toBe(true);
    expect(line).toMatch(/persists nothing/);
    expect(line).toMatch(/appendonly yes/);
  });

  it("warns when Redis only snapshots", () => {
    const { warn, line } = durabilityLine({ appendonly: "no", appendfsync: "everysec", save: "3600 1" });
    expect(warn).toBe(true);
    expect(line).toMatch(/since the last snapshot/);
  });

  it("says what AOF everysec and always keep, without a warning", () => {
    expect(durabilityLine({ appendonly: "yes", appendfsync: "everysec", save: "" })).toMatchObject({
      warn: false,
      line: expect.stringMatching(/up to the last second/),
    });
    expect(durabilityLine({ appendonly: "yes", appendfsync: "always", save: "" })).toMatchObject({
      warn: false,
      line: expect.stringMatching(/survives a Redis crash/),
    });
  });

  it("warns when the settings cannot be read", () => {
    expect(durabilityLine(null).warn).toBe(true);
  });

  it("reads a real Redis's settings (read only)", async () => {
    const durability = await readRedisDurability(REDIS_URL);
    expect(durability).not.toBeNull();
    expect(["yes", "no"]).toContain(durability!.appendonly);
    expect(typeof durability!.save).toBe("string");
  });

  it("reads null from a Redis it cannot reach", async () => {
    expect(await readRedisDurability("redis://127.0.0.1:1")).toBeNull();
  });
});
