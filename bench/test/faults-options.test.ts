import { describe, expect, it } from "vitest";
import { OptionError, parseOptions } from "../src/bench-options.ts";
import { FAULT_NAMES } from "../src/faults/fault-catalogue.ts";
import { FAULTS_OPTION_SPECS, toFaultsOptions } from "../src/faults/faults-options.ts";
import { HOST_FAULT_NAMES, SINGLE_REDIS_HOST_FAULTS } from "../src/faults/hosts/host-faults.ts";
import { lossCountedFaults } from "../src/faults/hosts/hosts-faults-run.ts";

const parse = (...args: string[]) => toFaultsOptions(parseOptions(FAULTS_OPTION_SPECS, args));

describe("faults options", () => {
  it("runs every fault in the suite's order with the issue's timings by default", () => {
    const options = parse();
    expect(options.faults).toEqual([...FAULT_NAMES]);
    expect(options.hosts).toBe(false);
    expect(options.hostFaults).toEqual([]);
    expect(options.fullDefaultRun).toBe(true);
    // 0: the overload burst offers overloadFactor x the sustainable rate the run measures first.
    expect(options).toMatchObject({ rate: 1000, overloadRate: 0, overloadFactor: 5, burstUsers: 10000 });
    expect(options.providerOrderRate).toBe(20);
    expect(options.timings).toMatchObject({
      redisUnreachable: 10,
      shardStopped: 30,
      shardFrozen: 40,
      shardReadOnly: 180,
      shardSlowMs: 500,
      overload: 30,
    });
  });

  it("keeps the suite's order whatever order --faults names them in", () => {
    const options = parse("--faults", "redis-restart-none,worker-kill", "--rate", "300");
    expect(options.faults).toEqual(["worker-kill", "redis-restart-none"]);
    expect(options.fullDefaultRun).toBe(false);
    expect(options.overloadRate).toBe(0);
    expect(parse("--overload-rate", "30000").overloadRate).toBe(30000);
  });

  it("rejects a fault it does not know", () => {
    expect(() => parse("--faults", "worker-kill,meteor")).toThrow(OptionError);
  });

  it("runs every fault between hosts on one Redis, and only those, with --hosts, partitions of 20 s and a slow link of 60 s", () => {
    const options = parse("--hosts");
    expect(options.hosts).toBe(true);
    expect(options.hostsRedis).toBe("single");
    expect(options.waitReplicas).toBe(0);
    expect(options.hostFaults).toEqual([...SINGLE_REDIS_HOST_FAULTS]);
    expect(options.hostFaults).not.toContain("hosts-cluster-master-partition");
    expect(options.faults).toEqual([]);
    // A run on test hosts is never the committed full default run of the other faults.
    expect(options.fullDefaultRun).toBe(false);
    expect(options.timings).toMatchObject({ partition: 20, slowLink: 60 });
  });

  it("picks faults between hosts with --faults, in the suite's order, and their timings", () => {
    const options = parse(
      "--hosts",
      "--faults",
      "hosts-shard-slow-link,hosts-redis-partition",
      "--partition",
      "5",
      "--slow-link",
      "7",
    );
    expect(options.hostFaults).toEqual(["hosts-redis-partition", "hosts-shard-slow-link"]);
    expect(options.timings).toMatchObject({ partition: 5, slowLink: 7 });
  });

  it("runs the partition during shards add last among the faults between hosts, with --partition", () => {
    const options = parse(
      "--hosts",
      "--faults",
      "hosts-shards-add-partition,hosts-redis-partition",
      "--partition",
      "9",
    );
    expect(options.hostFaults).toEqual(["hosts-redis-partition", "hosts-shards-add-partition"]);
    expect(HOST_FAULT_NAMES.at(-1)).toBe("hosts-shards-add-partition");
    expect(options.timings.partition).toBe(9);
    expect(() => parse("--faults", "hosts-shards-add-partition")).toThrow(/needs --hosts/);
  });

  it("refuses a fault between hosts without --hosts, and a one-host fault with it", () => {
    expect(() => parse("--faults", "hosts-redis-partition")).toThrow(/needs --hosts/);
    expect(() => parse("--hosts", "--faults", "worker-kill,hosts-shard-partition")).toThrow(
      /--faults worker-kill: with --hosts only the faults between hosts run/,
    );
    expect(() => parse("--hosts", "--partition", "0")).toThrow(OptionError);
  });

  it("runs the cluster master partition on a Redis Cluster, with or without REDIS_WAIT_REPLICAS", () => {
    const waiting = parse("--hosts", "--redis", "cluster", "--wait-replicas", "1");
    expect(waiting).toMatchObject({ hostsRedis: "cluster", waitReplicas: 1 });
    expect(waiting.hostFaults).toEqual(["hosts-cluster-master-partition"]);
    // With WAIT a loss fails the run; without, it is counted.
    expect(lossCountedFaults(waiting)).toEqual([]);
    const notWaiting = parse("--hosts", "--redis", "cluster");
    expect(notWaiting.waitReplicas).toBe(0);
    expect(lossCountedFaults(notWaiting)).toEqual(["hosts-cluster-master-partition"]);
    expect(lossCountedFaults(parse("--hosts"))).toEqual([]);
    // The Postgres faults run on a cluster when named; one Redis's partition does not.
    expect(
      parse(
        "--hosts",
        "--redis",
        "cluster",
        "--faults",
        "hosts-shard-partition,hosts-cluster-master-partition",
      ).hostFaults,
    ).toEqual(["hosts-cluster-master-partition", "hosts-shard-partition"]);
    expect(() => parse("--hosts", "--redis", "cluster", "--faults", "hosts-redis-partition")).toThrow(
      /with --redis cluster the faults between hosts are/,
    );
    expect(() => parse("--hosts", "--faults", "hosts-cluster-master-partition")).toThrow(
      /with --redis single the faults between hosts are/,
    );
    expect(() => parse("--hosts", "--wait-replicas", "1")).toThrow(/needs --hosts --redis cluster/);
    expect(() => parse("--redis", "cluster")).toThrow(/--redis is for --hosts/);
    expect(HOST_FAULT_NAMES).toContain("hosts-cluster-master-partition");
  });
});
