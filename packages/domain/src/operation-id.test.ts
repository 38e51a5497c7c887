import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ALPHABET } from "./crockford-base32.ts";
import {
  BUCKET_COUNT,
  bucketCodeOf,
  idempotentTail,
  newOperationId,
  OPERATION_ID_PATTERN,
  OPERATION_KINDS,
  parseOperationId,
} from "./operation-id.ts";

const T = Date.parse("2026-11-22T02:50:15.123Z");

describe("newOperationId / parseOperationId", () => {
  it("round-trips kind, bucket and time", () => {
    for (const kind of OPERATION_KINDS) {
      for (const bucket of [0, 1, 31, 32, 512, 1000, BUCKET_COUNT - 1]) {
        for (const time of [0, 1, T, 32 ** 10 - 1]) {
          const id = newOperationId(kind, bucket, time);
          expect(id).toMatch(new RegExp(OPERATION_ID_PATTERN));
          expect(parseOperationId(id)).toEqual({ kind, bucket, createdAtMs: time });
        }
      }
    }
  });

  it("names the kind in the prefix", () => {
    expect(newOperationId("payment", 7, T)).toMatch(/^pay_/);
    expect(newOperationId("deposit", 7, T)).toMatch(/^dep_/);
    expect(newOperationId("coupon_issue", 7, T)).toMatch(/^cis_/);
  });

  it("uses the current time by default", () => {
    const before = Date.now();
    const { createdAtMs } = parseOperationId(newOperationId("payment", 3))!;
    expect(createdAtMs).toBeGreaterThanOrEqual(before);
    expect(createdAtMs).toBeLessThanOrEqual(Date.now());
  });

  it("is unique for the same kind, bucket and millisecond", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newOperationId("payment", 5, T)));
    expect(ids.size).toBe(10_000);
  });

  it("sorts by creation time (as strings) across buckets", () => {
    const times = [T - 86_400_000, T - 1, T, T + 1, T + 1000, T + 31 * 86_400_000];
    const ids = times.map((time, i) => newOperationId("payment", (i * 397) % BUCKET_COUNT, time));
    const shuffled = [...ids].reverse();
    expect(shuffled.sort()).toEqual(ids);
    // A later millisecond sorts after an earlier one whatever the bucket and random tail.
    for (let i = 0; i < 200; i++) {
      const a = newOperationId("deposit", BUCKET_COUNT - 1, T + i);
      const b = newOperationId("deposit", 0, T + i + 1);
      expect(a < b).toBe(true);
    }
  });

  it("refuses a bucket or time it cannot encode instead of wrapping into another bucket", () => {
    for (const bucket of [-1, BUCKET_COUNT, 1.5, Number.NaN]) {
      expect(() => newOperationId("payment", bucket, T)).toThrow(RangeError);
    }
    for (const time of [-1, 32 ** 10, 1.5]) {
      expect(() => newOperationId("payment", 0, time)).toThrow(RangeError);
    }
  });

  it.each([
    ["empty", ""],
    ["the prefix alone", "pay_"],
    ["an unknown kind", "wdr_01M80JPZKW9CHTKTTMJT7FAZ06"],
    ["an uppercase prefix", "PAY_01M80JPZKW9CHTKTTMJT7FAZ06"],
    ["no separator", "pay01M80JPZKW9CHTKTTMJT7FAZ06"],
    ["lowercase body", "pay_01m80jpzkw9chtkttmjt7faz06"],
    ["one character short", "pay_01M80JPZKW9CHTKTTMJT7FAZ0"],
    ["one character long", "pay_01M80JPZKW9CHTKTTMJT7FAZ066"],
    ["the letter I", "pay_01M80JPZKW9CHTKTTMJT7FAZ0I"],
    ["the letter L", "pay_01M80JPZKW9CHTKTTMJT7FAZ0L"],
    ["the letter O", "pay_01M80JPZKW9CHTKTTMJT7FAZ0O"],
    ["the letter U", "pay_01M80JPZKW9CHTKTTMJT7FAZ0U"],
    ["a trailing newline", "pay_01M80JPZKW9CHTKTTMJT7FAZ06\n"],
    ["a leading space", " pay_01M80JPZKW9CHTKTTMJT7FAZ06"],
    ["a path", "pay_01M80JPZKW9CHTKTTMJT7FAZ06/x"],
  ])("rejects %s", (_, id) => {
    expect(parseOperationId(id)).toBeNull();
  });

  it("accepts a well-formed id it did not mint", () => {
    expect(parseOperationId("dep_0000000000ZZ00000000000000")).toEqual({
      kind: "deposit",
      bucket: BUCKET_COUNT - 1,
      createdAtMs: 0,
    });
  });
});

describe("bucketCodeOf", () => {
  it("is the two characters every id of the bucket carries at 14..15, one code per bucket", () => {
    const codes = Array.from({ length: BUCKET_COUNT }, (_, bucket) => bucketCodeOf(bucket));
    for (const [bucket, code] of codes.entries()) {
      expect(newOperationId("order", bucket, T).slice(14, 16)).toBe(code);
    }
    expect(new Set(codes).size).toBe(BUCKET_COUNT);
  });

  it.each([-1, BUCKET_COUNT, 1.5, Number.NaN])("refuses bucket %s", (bucket) => {
    expect(() => bucketCodeOf(bucket)).toThrow(RangeError);
  });
});

describe("idempotentTail", () => {
  // The first 70 bits of SHA-256 over scope and key, in Crockford base32, computed here the long way.
  const expectedTail = (scope: string, key: string): string => {
    const digest = createHash("sha256").update(`${scope}\n${key}`, "utf8").digest();
    const bits = BigInt(`0x${digest.subarray(0, 9).toString("hex")}`) >> 2n;
    return Array.from({ length: 14 }, (_, i) => ALPHABET[Number((bits >> BigInt(5 * (13 - i))) & 31n)]).join(
      "",
    );
  };

  it("is what the ids already stored carry: a retry after an upgrade finds its status", () => {
    // Minted by the release before this one; a different tail would make every retry across a deploy a new payment.
    expect(idempotentTail("user:alice", "checkout-42")).toBe("WPFSKW21J8CD46");
    expect(idempotentTail("refund:pay_01M8MB0NENZKKA1MNFW3NA6KTA", "ré-essai ✓")).toBe("5A6F8VWATYC9V2");
  });

  it("is the first 70 bits of the key's SHA-256, whatever characters scope and key hold", () => {
    for (const [scope, key] of [
      ["user:bench-user-1", "k-1-1"],
      ["user:ü", "ключ"],
      ["provider:ord_01M8MB0NENZKKA1MNFW3NA6KTA", "🔑".repeat(20)],
      ["user:u", "x".repeat(255)],
    ] as const) {
      // Each twice: the second is the kept answer of the first.
      expect(idempotentTail(scope, key)).toBe(expectedTail(scope, key));
      expect(idempotentTail(scope, key)).toBe(expectedTail(scope, key));
    }
  });
});
