import { describe, expect, it } from "vitest";
import { keyTableDoubling } from "../src/payments/key-table-doubling.ts";

describe("keyTableDoubling", () => {
  it("names the power of two a stage's key count crossed", () => {
    expect(keyTableDoubling({ atStart: 2_074_403, atEnd: 2_236_580 })).toBe(2 ** 21);
    expect(keyTableDoubling({ atStart: 4_169_640, atEnd: 4_319_833 })).toBe(2 ** 22);
    expect(keyTableDoubling({ atStart: 1_048_575, atEnd: 1_048_576 })).toBe(2 ** 20);
  });

  it("is null within one table size, below 2^17, when keys shrank, or without a reading", () => {
    expect(keyTableDoubling({ atStart: 2_236_580, atEnd: 2_417_875 })).toBeNull();
    expect(keyTableDoubling({ atStart: 1_000, atEnd: 120_000 })).toBeNull();
    expect(keyTableDoubling({ atStart: 3_000_000, atEnd: 2_000_000 })).toBeNull();
    expect(keyTableDoubling(null)).toBeNull();
    expect(keyTableDoubling(undefined)).toBeNull();
  });
});
