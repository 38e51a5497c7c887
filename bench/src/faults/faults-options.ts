// Options of `./floodgate bench faults`: which faults, the steady load, and each fault's timing (the issue's
// values are the defaults).
import { OptionError, type OptionSpec, type OptionValues } from "../bench-options.ts";
import { FAULT_NAMES, type FaultName, type FaultTimings } from "./fault-catalogue.ts";
import {
  CLUSTER_HOST_FAULTS,
  HOST_FAULT_NAMES,
  type HostFaultName,
  SINGLE_REDIS_HOST_FAULTS,
} from "./hosts/host-faults.ts";

export const FAULTS_OPTION_SPECS: readonly OptionSpec[] = [
  {
    name: "faults",
    kind: "list",
    help: "faults to inject, in the suite's fixed order (the hosts-* ones with --hosts)",
    choices: [...FAULT_NAMES, ...HOST_FAULT_NAMES],
  },
  {
    name: "hosts",
    kind: "flag",
    help: "Redis and Postgres on test hosts of their own (network namespaces, as root) and the faults between hosts (hosts-*) instead of the others",
  },
  {
    name: "redis",
    kind: "choice",
    choices: ["single", "cluster"],
    help: "with --hosts: single, one Redis on a host of its own (default); cluster, a Redis Cluster of 3 masters and a replica each, every node on a host of its own, and by default only hosts-cluster-master-partition",
  },
  {
    name: "wait-replicas",
    kind: "int",
    help: "with --hosts --redis cluster: REDIS_WAIT_REPLICAS the system runs with (1: a 202 only once a replica has the request)",
    default: 0,
    min: 0,
    max: 1,
  },
  {
    name: "rate",
    kind: "int",
    help: "steady payments/s offered during every fault",
    default: 1000,
    min: 1,
    max: 20000,
  },
  {
    name: "provider-order-rate",
    kind: "int",
    help: "orders/s paid at the shop's payment provider during every fault, alongside the payments (0: none)",
    default: 20,
    min: 0,
    max: 2000,
  },
  {
    name: "overload-rate",
    kind: "int",
    help: "requests/s the overload burst offers (0: --overload-factor x the sustainable rate measured first)",
    default: 0,
    min: 0,
    max: 200000,
  },
  {
    name: "overload-factor",
    kind: "int",
    help: "the overload burst's rate, in multiples of the sustainable rate measured before the faults",
    default: 5,
    min: 1,
    max: 20,
  },
  {
    name: "burst-users",
    kind: "int",
    help: "the overload burst's own funded users (round robin: each pays rate / users per second)",
    default: 10000,
    min: 10,
    max: 1000000,
  },
  {
    name: "burst-connections",
    kind: "int",
    help: "the overload burst's pipelined keep-alive connections",
    default: 64,
    min: 1,
    max: 1000,
  },
  {
    name: "users",
    kind: "int",
    help: "shoppers (wallets funded, a customer token each)",
    default: 10000,
    min: 10,
    max: 1000000,
  },
  {
    name: "connections",
    kind: "int",
    help: "the clients' keep-alive connections at most",
    default: 200,
    min: 1,
    max: 5000,
  },
  { name: "workers", kind: "int", help: "Floodgate worker processes", default: 2, min: 2, max: 16 },
  {
    name: "intake-processes",
    kind: "int",
    help: "intake processes (one of them is killed)",
    default: 2,
    min: 2,
    max: 8,
  },
  {
    name: "before",
    kind: "int",
    help: "seconds of steady load before each fault",
    default: 10,
    min: 3,
    max: 600,
  },
  {
    name: "recover-timeout",
    kind: "int",
    help: "seconds of load after a fault, at most, waiting for recovery",
    default: 120,
    min: 10,
    max: 3600,
  },
  {
    name: "drain-timeout",
    kind: "int",
    help: "seconds, at most, for the backlog to drain before the audit",
    default: 180,
    min: 10,
    max: 3600,
  },
  { name: "redis-down", kind: "int", help: "seconds Redis is unreachable", default: 10, min: 1, max: 3600 },
  { name: "shard-down", kind: "int", help: "seconds a shard is stopped", default: 30, min: 1, max: 3600 },
  { name: "shard-frozen", kind: "int", help: "seconds a shard is frozen", default: 40, min: 1, max: 3600 },
  { name: "read-only", kind: "int", help: "seconds a shard is read-only", default: 180, min: 1, max: 3600 },
  {
    name: "global-down",
    kind: "int",
    help: "seconds the global database is cut (its restart)",
    default: 10,
    min: 1,
    max: 3600,
  },
  { name: "slow", kind: "int", help: "seconds a shard is slow", default: 30, min: 1, max: 3600 },
  {
    name: "slow-ms",
    kind: "int",
    help: "ms added to each reply of the slow shard",
    default: 500,
    min: 1,
    max: 60000,
  },
  { name: "overload", kind: "int", help: "seconds of the overload", default: 30, min: 1, max: 3600 },
  {
    name: "partition",
    kind: "int",
    help: "seconds a host is partitioned (--hosts)",
    default: 20,
    min: 1,
    max: 3600,
  },
  {
    name: "slow-link",
    kind: "int",
    help: "seconds a shard's host link is slow and lossy (--hosts)",
    default: 60,
    min: 1,
    max: 3600,
  },
];

export interface FaultsOptions {
  /** The faults on one host (through the proxies); empty with --hosts. */
  faults: FaultName[];
  /** With --hosts: Redis and Postgres on test hosts, and these faults between hosts instead. */
  hosts: boolean;
  hostFaults: HostFaultName[];
  /** With --hosts: one Redis, or a Redis Cluster on six hosts. */
  hostsRedis: "single" | "cluster";
  /** REDIS_WAIT_REPLICAS of the system on the hosts' cluster (0 on one Redis). */
  waitReplicas: number;
  /** True when every fault runs with the defaults: the only run whose result is committed. */
  fullDefaultRun: boolean;
  rate: number;
  /** Orders per second paid by provider payments, mixed into each fault's load. */
  providerOrderRate: number;
  /** 0: overloadFactor x the sustainable rate measured before the faults. */
  overloadRate: number;
  overloadFactor: number;
  burstUsers: number;
  burstConnections: number;
  users: number;
  connections: number;
  workers: number;
  intakeProcesses: number;
  beforeSeconds: number;
  recoverTimeoutSeconds: number;
  drainTimeoutSeconds: number;
  timings: FaultTimings;
}

export function toFaultsOptions(values: OptionValues): FaultsOptions {
  const int = (name: string) => values[name] as number;
  const listed = typeof values.faults === "string" ? values.faults.split(",") : null;
  const hosts = values.hosts === true;
  const hostNames: readonly string[] = HOST_FAULT_NAMES;
  const misplaced = (listed ?? []).filter((name) => hostNames.includes(name) !== hosts);
  if (misplaced.length > 0) {
    throw new OptionError(
      hosts
        ? `--faults ${misplaced.join(",")}: with --hosts only the faults between hosts run (${HOST_FAULT_NAMES.join(", ")})`
        : `--faults ${misplaced.join(",")}: a fault between hosts needs --hosts`,
    );
  }
  const hostsRedis = (values.redis as "single" | "cluster" | null) ?? "single";
  const waitReplicas = int("wait-replicas");
  if (!hosts && values.redis !== null) throw new OptionError("--redis is for --hosts");
  if (hostsRedis !== "cluster" && waitReplicas > 0) {
    throw new OptionError(
      "--wait-replicas needs --hosts --redis cluster (one Redis has no replica to wait for)",
    );
  }
  const offered: readonly HostFaultName[] =
    hostsRedis === "cluster" ? CLUSTER_HOST_FAULTS : SINGLE_REDIS_HOST_FAULTS;
  const unoffered = (listed ?? []).filter((name) => hosts && !(offered as readonly string[]).includes(name));
  if (unoffered.length > 0) {
    throw new OptionError(
      `--faults ${unoffered.join(",")}: with --redis ${hostsRedis} the faults between hosts are ${offered.join(", ")}`,
    );
  }
  const faults = hosts ? [] : FAULT_NAMES.filter((name) => listed === null || listed.includes(name));
  const byDefault: readonly HostFaultName[] =
    hostsRedis === "cluster" ? ["hosts-cluster-master-partition"] : SINGLE_REDIS_HOST_FAULTS;
  const hostFaults = hosts
    ? HOST_FAULT_NAMES.filter((name) => (listed === null ? byDefault.includes(name) : listed.includes(name)))
    : [];
  const defaults = FAULTS_OPTION_SPECS.every(
    (spec) => spec.kind !== "int" || values[spec.name] === spec.default,
  );
  return {
    faults,
    hosts,
    hostFaults,
    hostsRedis,
    waitReplicas,
    fullDefaultRun: listed === null && defaults && !hosts,
    rate: int("rate"),
    providerOrderRate: int("provider-order-rate"),
    overloadRate: int("overload-rate"),
    overloadFactor: int("overload-factor"),
    burstUsers: int("burst-users"),
    burstConnections: int("burst-connections"),
    users: int("users"),
    connections: int("connections"),
    workers: int("workers"),
    intakeProcesses: int("intake-processes"),
    beforeSeconds: int("before"),
    recoverTimeoutSeconds: int("recover-timeout"),
    drainTimeoutSeconds: int("drain-timeout"),
    timings: {
      redisUnreachable: int("redis-down"),
      shardStopped: int("shard-down"),
      shardFrozen: int("shard-frozen"),
      shardReadOnly: int("read-only"),
      globalDbDown: int("global-down"),
      shardSlow: int("slow"),
      shardSlowMs: int("slow-ms"),
      overload: int("overload"),
      partition: int("partition"),
      slowLink: int("slow-link"),
    },
  };
}
