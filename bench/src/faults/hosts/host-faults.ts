// The faults of `./floodgate bench faults --hosts`, in the order a run injects them: faults between hosts, made
// by the kernel (a host's bridge port down: packets dropped both ways, no RST; netem for a slow, lossy link, or
// where the kernel has none an emulation from iptables and NFQUEUE, named as such). A fault the machine cannot
// make says so before its phase (`unavailable`): it is reported, never run as a pass.
import type { TcpProxy } from "@floodgate/test-fixtures";
import type { FaultTimings } from "../fault-catalogue.ts";
import type { PhaseFault } from "../fault-phase.ts";
import { partitionClusterMaster } from "./cluster-master-partition.ts";
import { FAILED_NOTE } from "./failed-note.ts";
import { cutLinksUnavailable } from "./host-link-cut.ts";
import { HOSTED_SHARD, type HostsFaultRig, PROXIED_SHARD, SPARE_SHARD } from "./hosts-fault-rig.ts";
import { partitionDuringShardsAdd } from "./shards-add-partition.ts";
import { slowLinkFor } from "./slow-link-injection.ts";
import { describeSlowLink, slowLinkHere } from "./slow-link-mechanism.ts";
import { SLOW_LOSSY_LINK } from "./test-network.ts";

export const HOST_FAULT_NAMES = [
  "hosts-redis-partition",
  // On a Redis Cluster only (--redis cluster).
  "hosts-cluster-master-partition",
  "hosts-shard-partition",
  "hosts-commit-cut",
  "hosts-shard-slow-link",
  // Last: it leaves the spare shard owning buckets, so the faults before it run on the four shards as before.
  "hosts-shards-add-partition",
] as const;

export type HostFaultName = (typeof HOST_FAULT_NAMES)[number];

/** The faults a run on one Redis offers (all but the cluster's), and on a cluster (all but one Redis's). */
export const SINGLE_REDIS_HOST_FAULTS: readonly HostFaultName[] = HOST_FAULT_NAMES.filter(
  (name) => name !== "hosts-cluster-master-partition",
);
export const CLUSTER_HOST_FAULTS: readonly HostFaultName[] = HOST_FAULT_NAMES.filter(
  (name) => name !== "hosts-redis-partition",
);

export interface HostFault extends PhaseFault<HostsFaultRig> {
  name: HostFaultName;
  /** Why this machine (or this rig) cannot make the fault (null: it can), checked before the phase's load starts. */
  unavailable?(rig: HostsFaultRig): string | null;
  /** The model as this machine makes it (when the mechanism depends on the machine), once it is available. */
  modelHere?(): string;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

const { delayMs, jitterMs, lossPercent } = SLOW_LOSSY_LINK;

/** Postgres's CommandComplete for COMMIT: 'C', length 11, the tag "COMMIT" and its terminating zero. */
const COMMIT_COMPLETE = Buffer.from("C\x00\x00\x00\x0bCOMMIT\x00", "latin1");

/** How many COMMIT answers the held replies carry (a transaction the server committed, its client not told). */
export function heldCommits(replies: readonly Buffer[]): number {
  let count = 0;
  for (const reply of replies) {
    for (let at = reply.indexOf(COMMIT_COMPLETE); at !== -1; at = reply.indexOf(COMMIT_COMPLETE, at + 1))
      count++;
  }
  return count;
}

/** Longest the commit cut tries to hold a COMMIT answer. */
const COMMIT_WAIT_MS = 30_000;

/** Holds the proxy's replies for a few ms at a time until a COMMIT answer is among them (then leaves them held)
 * or COMMIT_WAIT_MS has gone by; returns the COMMIT answers held. A connection stalls on its first held answer,
 * so a hold catches a COMMIT only when one was in flight as it began: a window with none is released (its
 * answers delivered a few ms late) and another one tried. */
async function holdACommit(proxy: TcpProxy): Promise<number> {
  const deadline = Date.now() + COMMIT_WAIT_MS;
  for (;;) {
    proxy.holdReplies();
    await sleep(0.03);
    const commits = heldCommits(proxy.heldReplies());
    if (commits > 0 || Date.now() > deadline) return commits;
    proxy.releaseReplies();
    await sleep(0.005 + Math.random() * 0.03);
  }
}

export const HOST_FAULTS: readonly HostFault[] = [
  {
    name: "hosts-redis-partition",
    model:
      "Redis's host (a network namespace) cut off from the intakes and the workers: its bridge port set down, packets dropped both ways, no RST (clients' kernels retransmit), then the port set up again",
    seconds: (t) => t.partition,
    unavailable: (rig) =>
      rig.redisHost === null ? "unavailable: Redis is a cluster here (hosts-cluster-master-partition)" : null,
    async inject({ rig, timings }) {
      const host = rig.redisHost;
      if (host === null) throw new Error("no single Redis host");
      rig.network.partition(host);
      await sleep(timings.partition);
      rig.network.heal(host);
      return [`${host.namespace} (${host.address}) partitioned for ${timings.partition} s`];
    },
  },
  {
    name: "hosts-cluster-master-partition",
    model:
      "a Redis Cluster master (of 3, each with a replica, every node on a host of its own) cut from its replica and the other Redis hosts, both ways at the packet level (iptables INPUT DROP in each namespace), while the intakes and the workers still reach it; its replica promoted by the majority; after --partition seconds (longer if the replica is not promoted yet, at most 60 s) the cut healed and the old master rejoins as a replica of the new one",
    seconds: (t) => t.partition,
    unavailable: (rig) =>
      rig.redisCluster === null
        ? "unavailable: needs a Redis Cluster (--redis cluster)"
        : cutLinksUnavailable(),
    async inject({ rig, timings }) {
      if (rig.redisCluster === null) throw new Error("no Redis Cluster");
      return partitionClusterMaster(rig.redisCluster, rig.waitReplicas, timings.partition);
    },
  },
  {
    name: "hosts-shard-partition",
    model: `the Postgres host of shards ${HOSTED_SHARD} and ${PROXIED_SHARD} (a network namespace) cut off while the workers apply: its bridge port set down, packets dropped both ways, no RST, then set up again; the workers retry`,
    seconds: (t) => t.partition,
    async inject({ rig, timings }) {
      rig.network.partition(rig.shardHost);
      await sleep(timings.partition);
      rig.network.heal(rig.shardHost);
      return [`${rig.shardHost.namespace} (${rig.shardHost.address}) partitioned for ${timings.partition} s`];
    },
  },
  {
    name: "hosts-commit-cut",
    model: `shard ${PROXIED_SHARD}'s TCP proxy holds its replies in 30 ms windows (released when they hold none) until one holds a COMMIT answer (the transaction committed, the worker not told), then its host's bridge port goes down and the proxy cuts the workers' connections (the held answers dropped: outcome unknown); after --partition seconds the link and the proxy come back; the workers retry the batch, exactly once must hold`,
    seconds: (t) => t.partition,
    async inject({ rig, timings }) {
      const proxy = rig.shardProxy;
      const commits = await holdACommit(proxy);
      const bytes = proxy.heldReplyBytes();
      rig.network.partition(rig.shardHost);
      await proxy.down();
      // Every client is gone: releasing delivers nothing, it drops the held replies and stops holding.
      proxy.releaseReplies();
      await sleep(timings.partition);
      rig.network.heal(rig.shardHost);
      await proxy.up();
      return [
        `${commits} COMMIT answers (of ${bytes} bytes of replies) held and dropped with their connections; shard ${PROXIED_SHARD}'s host partitioned for ${timings.partition} s`,
        ...(commits === 0
          ? [
              `${FAILED_NOTE} no COMMIT answer was held within ${COMMIT_WAIT_MS / 1000} s: no outcome was unknown`,
            ]
          : []),
      ];
    },
  },
  {
    name: "hosts-shard-slow-link",
    model: `the link of shards ${HOSTED_SHARD} and ${PROXIED_SHARD}'s host at ${delayMs} ms +/- ${jitterMs} ms and ${lossPercent} % loss both ways (tc netem where the kernel has it, else emulated with iptables and NFQUEUE), then healthy`,
    seconds: (t: FaultTimings) => t.slowLink,
    unavailable: () => {
      const choice = slowLinkHere();
      return "unavailable" in choice ? choice.unavailable : null;
    },
    modelHere: () => {
      const choice = slowLinkHere();
      if ("unavailable" in choice)
        return `the link of shards ${HOSTED_SHARD} and ${PROXIED_SHARD}'s host slowed: ${choice.unavailable}`;
      return `the link of shards ${HOSTED_SHARD} and ${PROXIED_SHARD}'s host at ${delayMs} ms +/- ${jitterMs} ms and ${lossPercent} % loss both ways, ${describeSlowLink(choice.mechanism, SLOW_LOSSY_LINK)}; then healthy`;
    },
    async inject({ rig, timings }) {
      const choice = slowLinkHere();
      if ("unavailable" in choice) throw new Error(choice.unavailable);
      return slowLinkFor(rig.network, rig.shardHost, SLOW_LOSSY_LINK, choice.mechanism, timings.slowLink);
    },
  },
  {
    name: "hosts-shards-add-partition",
    model: `\`./floodgate shards add\` of the spare shard ${SPARE_SHARD} (on the host of shards ${HOSTED_SHARD} and ${PROXIED_SHARD}) under load; after its first bucket switched and while another is paused (fenced, copying or verifying), that host's bridge port down for --partition seconds, then up; the move goes on, or is run again as docs/operations.md says (a run still going 5 min after the heal is killed first); then no move unfinished, the new shard owning the planned buckets, every user's rows on the one shard owning their bucket, and the audit`,
    seconds: (t) => t.partition,
    inject: ({ rig, timings }) => partitionDuringShardsAdd(rig, timings.partition),
  },
];

export function findHostFault(name: HostFaultName): HostFault {
  const fault = HOST_FAULTS.find((candidate) => candidate.name === name);
  if (!fault) throw new Error(`unknown host fault ${name}`);
  return fault;
}
