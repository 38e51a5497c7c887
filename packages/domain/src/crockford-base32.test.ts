import { describe, expect, it } from "vitest";
import { ALPHABET, decodeBase32, encodeBase32, randomBase32 } from "./crockford-base32.ts";

// What encodeBase32 must give: the value's digits in base 32, most significant first, padded with "0".
const reference = (value: number, length: number): string =>
  [...value.toString(32).padStart(length, "0")].map((digit) => ALPHABET[Number.parseInt(digit, 32)]).join("");

describe("encodeBase32", () => {
  it("gives each value's digits at every length, lengths mixed call after call", () => {
    const values = [0, 1, 31, 32, 1023, 1024, Date.parse("2026-11-30T15:00:00Z"), 32 ** 10 - 1];
    for (const value of values) {
      for (const length of [10, 2, 7, 10, 13]) {
        const needed = Math.max(1, Math.ceil(Math.log2(value + 1) / 5));
        if (needed > length) continue;
        expect(encodeBase32(value, length)).toBe(reference(value, length));
        expect(decodeBase32(encodeBase32(value, length))).toBe(value);
      }
    }
  });

  it("keeps the strings it made when it makes the next of the same length", () => {
    const first = encodeBase32(1, 10);
    const second = encodeBase32(2, 10);
    expect([first, second]).toEqual(["0000000001", "0000000002"]);
  });
});

describe("randomBase32", () => {
  it("gives the length asked for, in the alphabet, whatever length came before", () => {
    const made = [14, 16, 2, 16, 14, 26].map((length) => [length, randomBase32(length)] as const);
    for (const [length, text] of made) {
      expect(text).toHaveLength(length);
      expect(text).toMatch(/^[0-9A-HJKMNP-TV-Z]+$/);
    }
  });

  it("draws every character of the alphabet and repeats no string", () => {
    const texts = Array.from({ length: 2000 }, () => randomBase32(16));
    expect(new Set(texts).size).toBe(texts.length);
    expect(new Set(texts.join(""))).toEqual(new Set(ALPHABET));
  });
});
