import { describe, expect, it } from "vitest";
import { COUPON_ID_PATTERN, isCouponId, newCouponId } from "./coupon-id.ts";
import { parseOperationId } from "./operation-id.ts";

describe("newCouponId / isCouponId", () => {
  it("mints well-formed, unique ids that sort by creation time", () => {
    const t = Date.parse("2026-11-22T04:00:00.000Z");
    const ids = Array.from({ length: 5000 }, (_, i) => newCouponId(t + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(new RegExp(COUPON_ID_PATTERN));
      expect(isCouponId(id)).toBe(true);
    }
    expect(newCouponId(t) < newCouponId(t + 1)).toBe(true);
  });

  it("is not an operation id, and an operation id is not a coupon id", () => {
    const id = newCouponId();
    expect(parseOperationId(id)).toBeNull();
    expect(isCouponId("pay_01M80JPZKW9CHTKTTMJT7FAZ06")).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["the prefix alone", "cpn_"],
    ["lowercase", "cpn_01m80jpzkw9chtkttmjt7faz06"],
    ["one character short", "cpn_01M80JPZKW9CHTKTTMJT7FAZ0"],
    ["one character long", "cpn_01M80JPZKW9CHTKTTMJT7FAZ066"],
    ["the letter U", "cpn_01M80JPZKW9CHTKTTMJT7FAZ0U"],
    ["a hash tag brace", "cpn_01M80JPZKW9CHTKTTMJT7FA}06"],
    ["a trailing newline", "cpn_01M80JPZKW9CHTKTTMJT7FAZ06\n"],
  ])("rejects %s", (_, id) => {
    expect(isCouponId(id)).toBe(false);
  });
});
