import { describe, expect, it } from "vitest";
import { OptionError, parseOptions } from "../src/bench-options.ts";
import { HOT_PRODUCT_OPTION_SPECS, toHotProductOptions } from "../src/hot-product/hot-product-options.ts";

const parse = (...args: string[]) => toHotProductOptions(parseOptions(HOT_PRODUCT_OPTION_SPECS, args));

describe("hot-product options", () => {
  it("defaults replay issue 4: 50,000 units at 4,000 orders/s over 500 connections, no --max", () => {
    expect(parse()).toEqual({
      stock: 50_000,
      rate: 4000,
      connections: 500,
      slices: 50,
      users: 50_000,
      workers: 2,
      warmup: 5000,
      max: false,
      stageDuration: 10,
      redis: "single",
    });
  });

  it("runs again on a Redis Cluster with --redis cluster, the sale or --max", () => {
    expect(parse("--redis", "cluster")).toMatchObject({ redis: "cluster", max: false });
    expect(parse("--max", "--redis=cluster")).toMatchObject({ redis: "cluster", max: true });
  });

  it("reads --max and values after a space or an equals sign", () => {
    expect(parse("--max", "--stage-duration=5", "--stock", "1000", "--warmup", "0")).toMatchObject({
      max: true,
      stageDuration: 5,
      stock: 1000,
      warmup: 0,
    });
  });

  it.each([
    [["--stock", "0"], "--stock must be between 1 and 2000000, got 0"],
    [["--rate", "fast"], '--rate needs a whole number, got "fast"'],
    [["--stage-duration", "1"], "--stage-duration must be between 3 and 120"],
    [["--drain"], "unknown option --drain"],
    [["--max=yes"], "--max takes no value"],
    [["--redis", "cluster-wait"], '--redis must be one of single, cluster, got "cluster-wait"'],
    [["--redis", "--max"], "--redis needs one of single, cluster"],
  ])("rejects %j with a clear message", (args, message) => {
    expect(() => parse(...args)).toThrow(OptionError);
    expect(() => parse(...args)).toThrow(message);
  });
});
