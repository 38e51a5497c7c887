import { describe, expect, it } from "vitest";
import { describeOptions, OptionError, parseOptions } from "../src/bench-options.ts";
import { PAYMENTS_OPTION_SPECS, toPaymentsOptions } from "../src/payments/payments-options.ts";

const parse = (...args: string[]) => toPaymentsOptions(parseOptions(PAYMENTS_OPTION_SPECS, args));

describe("payments options", () => {
  it("defaults replay the seed: 2,000/s for 60 s, fixed-rate run only", () => {
    expect(parse()).toMatchObject({
      rate: 2000,
      duration: 60,
      users: 100_000,
      connections: 100,
      max: false,
      drain: null,
      baseline: false,
      auth: "on",
      fixedRate: true,
    });
  });

  it("runs --max with auth on and with AUTH=off unless --auth says otherwise", () => {
    expect(parse("--max")).toMatchObject({ max: true, auth: "compare" });
    expect(parse("--max", "--auth", "on")).toMatchObject({ auth: "on" });
    expect(parse("--max", "--auth=off")).toMatchObject({ auth: "off" });
    expect(parse("--auth", "compare", "--duration", "10")).toMatchObject({
      auth: "compare",
      fixedRate: true,
    });
    expect(parse("--drain")).toMatchObject({ auth: "on" });
    expect(parse("--drain", "--auth", "off")).toMatchObject({ auth: "off" });
  });

  it("compares one Redis with a Redis Cluster under --redis cluster, with auth on for both", () => {
    expect(parse()).toMatchObject({ redis: "single" });
    expect(parse("--max", "--redis", "cluster")).toMatchObject({ redis: "cluster", auth: "on", max: true });
    expect(parse("--redis=cluster")).toMatchObject({ redis: "cluster", fixedRate: true });
    expect(parse("--max", "--redis", "cluster", "--auth", "off")).toMatchObject({ auth: "off" });
    expect(parse("--max", "--redis", "cluster-wait")).toMatchObject({ redis: "cluster-wait", auth: "on" });
  });

  it("keeps autocannon unless --generator wrk, which takes --peer once per peer and --rounds", () => {
    expect(parse("--max")).toMatchObject({ generator: "autocannon", peers: [], rounds: 2 });
    expect(parse("--max", "--generator", "wrk")).toMatchObject({ generator: "wrk", max: true, peers: [] });
    expect(
      parse(
        "--max",
        "--generator=wrk",
        "--peer",
        "raw",
        "--peer=bullmq",
        "--rounds",
        "3",
        "--stage-duration",
        "5",
      ),
    ).toMatchObject({
      generator: "wrk",
      peers: ["raw", "bullmq"],
      rounds: 3,
      stageDuration: 5,
      connections: 100,
    });
    expect(parse("--max", "--generator", "wrk", "--peer", "bullmq", "--peer", "raw")).toMatchObject({
      peers: ["bullmq", "raw"],
    });
  });

  it("takes another checkout's intake as a target of the wrk comparison (--compare-checkout)", () => {
    expect(parse("--max", "--generator", "wrk")).toMatchObject({ compareCheckout: null });
    expect(
      parse("--max", "--generator", "wrk", "--compare-checkout", "../before", "--peer", "raw"),
    ).toMatchObject({ compareCheckout: "../before", peers: ["raw"] });
    expect(parse("--max", "--generator", "wrk", "--compare-checkout=/tmp/old")).toMatchObject({
      compareCheckout: "/tmp/old",
    });
  });

  it("reads values after a space or an equals sign", () => {
    expect(parse("--rate", "500", "--duration=10", "--users", "5000")).toMatchObject({
      rate: 500,
      duration: 10,
      users: 5000,
    });
  });

  it("takes --drain alone as 120000 and --drain N as N; either replaces the fixed-rate run", () => {
    expect(parse("--drain")).toMatchObject({ drain: 120_000, fixedRate: false });
    expect(parse("--drain", "5000", "--max")).toMatchObject({ drain: 5000, max: true, fixedRate: false });
    expect(parse("--drain", "--users", "10")).toMatchObject({ drain: 120_000, users: 10 });
  });

  it("runs --sustained instead of the fixed-rate run, from --rate, 60-s stages, at most 10 unless told", () => {
    expect(parse("--sustained")).toMatchObject({
      sustained: true,
      sustainedDuration: 60,
      sustainedStages: 10,
      fixedRate: false,
      max: false,
      auth: "on",
      rate: 2000,
    });
    expect(
      parse("--sustained", "--sustained-duration", "10", "--sustained-stages=3", "--rate", "500"),
    ).toMatchObject({ sustained: true, sustainedDuration: 10, sustainedStages: 3, rate: 500 });
    expect(parse("--sustained", "--drain", "1000", "--auth", "off")).toMatchObject({
      sustained: true,
      drain: 1000,
      auth: "off",
    });
    expect(parse()).toMatchObject({ sustained: false, fixedRate: true });
  });

  it.each([
    [["--sustained", "--max"], "--sustained runs one Floodgate alone; it does not combine with --max"],
    [["--sustained", "--baseline"], "does not combine with --baseline"],
    [["--sustained", "--auth", "compare"], "does not combine with --auth compare"],
    [["--sustained", "--redis", "cluster"], "does not combine with --redis cluster"],
    [["--sustained", "--sustained-duration", "2"], "--sustained-duration must be between 3 and 600, got 2"],
    [["--sustained", "--sustained-stages", "0"], "--sustained-stages must be between 1 and 30, got 0"],
    [["--sustained", "--sustained-stages"], "--sustained-stages needs a value"],
    [["--sustained=1"], "--sustained takes no value"],
  ])("refuses %j with a clear message", (args, message) => {
    expect(() => parse(...args)).toThrow(OptionError);
    expect(() => parse(...args)).toThrow(message);
  });

  it.each([
    [["--rate"], "--rate needs a value"],
    [["--rate", "--max"], "--rate needs a value"],
    [["--rate", "fast"], '--rate needs a whole number, got "fast"'],
    [["--rate", "-5"], "--rate needs a whole number"],
    [["--rate", "0"], "--rate must be between 1 and 100000, got 0"],
    [["--rat", "5"], "unknown option --rat"],
    [["payments"], 'unexpected argument "payments"'],
    [["--max", "--max"], "--max is given twice"],
    [["--max=yes"], "--max takes no value"],
    [["--drain", "--baseline"], "no queue to --drain"],
    [["--auth"], "--auth needs one of on, off, compare"],
    [["--auth", "--max"], "--auth needs one of on, off, compare"],
    [["--auth", "maybe"], '--auth must be one of on, off, compare, got "maybe"'],
    [["--drain", "--auth", "compare"], "--auth compare compares the fixed-rate run or --max"],
    [["--max", "--redis", "cluster", "--auth", "compare"], "compare one thing at a time"],
    [["--max", "--redis", "cluster", "--drain"], "without --baseline or --drain"],
    [["--redis", "cluster", "--baseline"], "without --baseline or --drain"],
    [["--redis", "sentinel"], '--redis must be one of single, cluster, cluster-wait, got "sentinel"'],
    [["--redis", "cluster-wait", "--drain", "10"], "without --baseline or --drain"],
    [
      ["--max", "--peer", "raw"],
      "--peer is a target of the saturation comparison: give it with --max --generator wrk",
    ],
    [["--generator", "wrk", "--peer", "raw"], "give it with --max --generator wrk"],
    [["--max", "--generator", "autocannon", "--peer", "raw"], "give it with --max --generator wrk"],
    [["--max", "--generator", "wrk", "--peer", "kafka"], '--peer must be one of raw, bullmq, got "kafka"'],
    [["--max", "--generator", "wrk", "--peer"], "--peer needs one of raw, bullmq"],
    [["--max", "--generator", "wrk", "--peer", "raw", "--peer", "raw"], "--peer raw is given twice"],
    [
      ["--max", "--compare-checkout", "../before"],
      "--compare-checkout is a target of the saturation comparison",
    ],
    [["--max", "--generator", "wrk", "--compare-checkout"], "--compare-checkout needs a path"],
    [
      ["--max", "--generator", "wrk", "--compare-checkout", "--peer", "raw"],
      "--compare-checkout needs a path",
    ],
    [["--generator", "wrk"], "--generator wrk runs the --max saturation comparison: add --max"],
    [["--generator", "ab"], '--generator must be one of autocannon, wrk, got "ab"'],
    [["--max", "--generator", "wrk", "--auth", "on"], "--generator wrk takes no --auth"],
    [["--max", "--generator", "wrk", "--redis", "cluster"], "--generator wrk takes no --redis"],
    [["--max", "--generator", "wrk", "--baseline"], "--generator wrk takes no --baseline"],
    [["--max", "--generator", "wrk", "--drain"], "--generator wrk takes no --drain"],
    [["--max", "--generator", "wrk", "--rounds", "0"], "--rounds must be between 1 and 20, got 0"],
  ])("rejects %j with a clear message", (args, message) => {
    expect(() => parse(...args)).toThrow(OptionError);
    expect(() => parse(...args)).toThrow(message);
  });
});

describe("describeOptions", () => {
  it("shows a choice's words, with no numeric default", () => {
    const help = describeOptions([
      { name: "auth", kind: "choice", choices: ["on", "off"], help: "who pays" },
    ]);
    expect(help).toBe(`  ${"--auth on|off".padEnd(22)} who pays`);
  });

  it("shows a repeatable option's words and that it repeats", () => {
    const help = describeOptions([
      { name: "peer", kind: "repeated", choices: ["raw", "bullmq"], help: "peers" },
    ]);
    expect(help).toBe(`  ${"--peer raw|bullmq ...".padEnd(22)} peers`);
  });

  it("lists the wrk comparison's options in payments --help", () => {
    const help = describeOptions(PAYMENTS_OPTION_SPECS);
    for (const usage of [
      "--generator autocannon|wrk",
      "--peer raw|bullmq ...",
      "--compare-checkout DIR",
      "--rounds N",
    ]) {
      expect(help).toContain(usage);
    }
  });
});
