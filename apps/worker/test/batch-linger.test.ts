import { describe, expect, it } from "vitest";
import { LINGER_FLOOR_MS, LINGER_FULL_AT, lingerAfterRead } from "../src/batch-linger.ts";

describe("lingerAfterRead", () => {
  it("waits at least the floor, then in proportion to the read, up to WORKER_LINGER_MS from LINGER_FULL_AT on", () => {
    expect(lingerAfterRead(1, 250, 2000)).toBe(LINGER_FLOOR_MS);
    expect(lingerAfterRead(40, 250, 2000)).toBe(100);
    expect(lingerAfterRead(LINGER_FULL_AT, 250, 2000)).toBe(250);
    expect(lingerAfterRead(999, 250, 2000)).toBe(250);
  });

  it("never waits longer than WORKER_LINGER_MS, even below the floor", () => {
    expect(lingerAfterRead(1, 20, 2000)).toBe(20);
  });

  it("does not wait for an empty read, a read of half a batch or more, or with lingering off", () => {
    expect(lingerAfterRead(0, 250, 2000)).toBe(0);
    expect(lingerAfterRead(1000, 250, 2000)).toBe(0);
    expect(lingerAfterRead(50, 0, 2000)).toBe(0);
  });
});
