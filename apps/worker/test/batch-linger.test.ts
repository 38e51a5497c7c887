import { describe, expect, it } from "vitest";
import { LINGER_FULL_AT, lingerAfterRead } from "../src/batch-linger.ts";

describe("lingerAfterRead", () => {
  it("waits in proportion to the read, up to WORKER_LINGER_MS from LINGER_FULL_AT entries on", () => {
    expect(lingerAfterRead(1, 250, 2000)).toBe(3); // 2.5 ms, rounded up: an idle system barely waits
    expect(lingerAfterRead(40, 250, 2000)).toBe(100);
    expect(lingerAfterRead(LINGER_FULL_AT, 250, 2000)).toBe(250);
    expect(lingerAfterRead(999, 250, 2000)).toBe(250);
  });

  it("does not wait for an empty read, a read of half a batch or more, or with lingering off", () => {
    expect(lingerAfterRead(0, 250, 2000)).toBe(0);
    expect(lingerAfterRead(1000, 250, 2000)).toBe(0);
    expect(lingerAfterRead(50, 0, 2000)).toBe(0);
  });
});
