import { describe, expect, it } from "vitest";
import { OptionError, parseOptions } from "../src/bench-options.ts";
import { COUPON_DROP_OPTION_SPECS, toCouponDropOptions } from "../src/coupon-drop/coupon-drop-options.ts";

const parse = (...args: string[]) => toCouponDropOptions(parseOptions(COUPON_DROP_OPTION_SPECS, args));

describe("coupon-drop options", () => {
  it("runs on the bench Redis alone unless --redis cluster asks for the drop again on a Redis Cluster", () => {
    expect(parse()).toEqual({
      requests: 100_000,
      users: 50_000,
      quantity: 1000,
      connections: 100,
      workers: 2,
      warmup: 5000,
      redis: "single",
    });
    expect(parse("--redis", "cluster", "--quantity", "100")).toMatchObject({
      redis: "cluster",
      quantity: 100,
    });
    expect(parse("--redis=single")).toMatchObject({ redis: "single" });
  });

  it.each([
    [["--redis", "cluster-wait"], '--redis must be one of single, cluster, got "cluster-wait"'],
    [["--redis"], "--redis needs one of single, cluster"],
    [["--redis", "--warmup", "0"], "--redis needs one of single, cluster"],
  ])("rejects %j with a clear message", (args, message) => {
    expect(() => parse(...args)).toThrow(OptionError);
    expect(() => parse(...args)).toThrow(message);
  });
});
