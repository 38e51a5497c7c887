import { describe, expect, it } from "vitest";
import { checkInvariants } from "../src/coupon-drop/coupon-drop-summary.ts";
import { dropOrder } from "../src/coupon-drop/coupon-requests.ts";

describe("dropOrder", () => {
  it("gives every user the same number of attempts, shuffled, the same way every run", () => {
    const order = dropOrder(1000, 500);
    const attempts = new Map<number, number>();
    for (const user of order) attempts.set(user, (attempts.get(user) ?? 0) + 1);
    expect(attempts.size).toBe(500);
    expect(new Set(attempts.values())).toEqual(new Set([2]));
    expect([...order]).not.toEqual([...order].sort((a, b) => a - b));
    expect([...dropOrder(1000, 500)]).toEqual([...order]);
  });

  it("spreads a remainder over the first users", () => {
    const order = dropOrder(7, 3);
    expect([...order].sort()).toEqual([0, 0, 0, 1, 1, 2, 2]);
  });
});

describe("checkInvariants", () => {
  const good = {
    quantity: 10,
    accepted: 10,
    acceptedUsers: 10,
    conflicts: 10,
    soldOut: 80,
    redisIssued: 10,
    rows: 10,
    rowUsers: 10,
    missingRows: 0,
    unconfirmedRows: 0,
    drained: true,
    drainWaitMs: 5,
  };
  const counts = { responses: 100, winnerAttempts: 20 };

  it("holds for a clean drop", () => {
    expect(checkInvariants(good, counts)).toMatchObject({
      expectedConflicts: 10,
      expectedSoldOut: 80,
      ok: true,
    });
  });

  it.each([
    ["one coupon too many", { accepted: 11 }],
    ["two coupons to one user", { acceptedUsers: 9 }],
    ["a row missing", { rows: 9 }],
    ["Redis counting differently", { redisIssued: 11 }],
    ["a 410 where a 409 belongs", { conflicts: 9, soldOut: 81 }],
    ["an unconfirmed row", { unconfirmedRows: 1 }],
    ["an undrained queue", { drained: false }],
  ])("breaks with %s", (_, changes) => {
    expect(checkInvariants({ ...good, ...changes }, counts).ok).toBe(false);
  });
});
