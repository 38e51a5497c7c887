// The verified-token cache on its own: a hit is the very same text, it never holds more than its capacity, and a
// full bucket gives up its oldest key.
import { describe, expect, it } from "vitest";
import { VerifiedTokenCache } from "../src/verified-token-cache.ts";

const verdict = (userId: string) => ({ userId, expiresAt: 1_000 });
/** Keys ending alike share a fingerprint (it is read from the last eight characters). */
const TAIL = ".SAMETAIL";

describe("VerifiedTokenCache", () => {
  it("answers a key with the verdict set for the very same text, also when the key is a slice of a longer string", () => {
    const cache = new VerifiedTokenCache(100);
    const header = "Bearer aaa.bbb.signature-one";
    cache.set(header.slice(7), verdict("alice"));
    expect(cache.get("aaa.bbb.signature-one")).toEqual(verdict("alice"));
    expect(cache.get(`xBearer aaa.bbb.signature-one`.slice(8))).toEqual(verdict("alice"));
    expect(cache.get("aaa.bbb.signature-onf")).toBeUndefined();
    expect(cache.get("aaa.bbb.signature-one ")).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it("compares the whole key: another key with the same last characters misses, and once set takes the slot", () => {
    const cache = new VerifiedTokenCache(100);
    cache.set(`alice${TAIL}`, verdict("alice"));
    expect(cache.get(`mallory${TAIL}`)).toBeUndefined();
    cache.set(`bob${TAIL}`, verdict("bob"));
    expect(cache.get(`bob${TAIL}`)).toEqual(verdict("bob"));
    expect(cache.get(`alice${TAIL}`)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it.each([
    0, 1, 2, 3, 4, 7, 8, 64,
  ])("never holds more than a capacity of %i, and always the key set last", (capacity) => {
    const cache = new VerifiedTokenCache(capacity);
    for (let i = 0; i < 500; i++) {
      const key = `token-${i}.${(i * 7919).toString(36)}`;
      cache.set(key, verdict(`user-${i}`));
      expect(cache.size).toBeLessThanOrEqual(capacity);
      expect(cache.get(key)).toEqual(capacity === 0 ? undefined : verdict(`user-${i}`));
    }
    // Whole buckets of four: below four one bucket holds the capacity, above it the multiple of four below.
    expect(cache.size).toBe(capacity < 4 ? capacity : capacity - (capacity % 4));
  });

  it("a full bucket gives its oldest key up first", () => {
    const cache = new VerifiedTokenCache(4); // one bucket of four
    const keys = ["k1", "k2", "k3", "k4", "k5", "k6"].map((name) => `header.claims.signature-${name}`);
    for (const key of keys.slice(0, 4)) cache.set(key, verdict(key));
    cache.set(keys[4]!, verdict(keys[4]!));
    expect(keys.map((key) => cache.get(key) !== undefined)).toEqual([false, true, true, true, true, false]);
    cache.set(keys[5]!, verdict(keys[5]!));
    expect(keys.map((key) => cache.get(key) !== undefined)).toEqual([false, false, true, true, true, true]);
  });

  it("setting a remembered key again replaces its verdict without taking another slot", () => {
    const cache = new VerifiedTokenCache(8);
    cache.set("a.b.c-signature", verdict("alice"));
    cache.set("a.b.c-signature", { userId: "alice", expiresAt: 2_000 });
    expect(cache.get("a.b.c-signature")).toEqual({ userId: "alice", expiresAt: 2_000 });
    expect(cache.size).toBe(1);
  });
  it("getUnexpired answers a key only before its verdict's expiry, from the expiry set with it", () => {
    const cache = new VerifiedTokenCache(8);
    cache.set("a.b.c-signature", { userId: "alice", expiresAt: 2_000 });
    expect(cache.getUnexpired("a.b.c-signature", 1_999)).toEqual({ userId: "alice", expiresAt: 2_000 });
    expect(cache.getUnexpired("a.b.c-signature", 2_000)).toBeUndefined();
    expect(cache.getUnexpired("a.b.c-signature", 5_000)).toBeUndefined();
    // get still answers an expired verdict: the verifier tells an expired token from an unknown one.
    expect(cache.get("a.b.c-signature")).toEqual({ userId: "alice", expiresAt: 2_000 });
    expect(cache.getUnexpired("x.b.c-signature", 1_000)).toBeUndefined();
    // Set again with a later expiry: the new expiry is the one checked.
    cache.set("a.b.c-signature", { userId: "alice", expiresAt: 9_000 });
    expect(cache.getUnexpired("a.b.c-signature", 5_000)).toEqual({ userId: "alice", expiresAt: 9_000 });
  });
});
