// The faults of `./floodgate bench faults --hosts`, in the order a run injects them: faults between hosts, made
// by the kernel (a host's bridge port down: packets dropped both ways, no RST; netem for a slow, lossy link). A
// fault the machine cannot make says so before its phase (`unavailable`): it is reported, never run as a pass.
import type { FaultTimings } from "../fault-catalogue.ts";
import type { PhaseFault } from "../fault-phase.ts";
import { missingForNetem } from "./host-preconditions.ts";
import { HOSTED_SHARD, type HostsFaultRig } from "./hosts-fault-rig.ts";
import { SLOW_LOSSY_LINK } from "./test-network.ts";

export const HOST_FAULT_NAMES = [
  "hosts-redis-partition",
  "hosts-shard-partition",
  "hosts-shard-slow-link",
] as const;

export type HostFaultName = (typeof HOST_FAULT_NAMES)[number];

export interface HostFault extends PhaseFault<HostsFaultRig> {
  name: HostFaultName;
  /** Why this machine cannot make the fault (null: it can), checked before the phase's load starts. */
  unavailable?(): string | null;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Why netem cannot run here, in the words the result carries; null when it can. */
export function netemUnavailable(missing: readonly string[] = missingForNetem()): string | null {
  return missing.length === 0 ? null : `unavailable: the kernel has no sch_netem (${missing.join("; ")})`;
}

const { delayMs, jitterMs, lossPercent } = SLOW_LOSSY_LINK;

export const HOST_FAULTS: readonly HostFault[] = [
  {
    name: "hosts-redis-partition",
    model:
      "Redis's host (a network namespace) cut off from the intakes and the workers: its bridge port set down, packets dropped both ways, no RST (clients' kernels retransmit), then the port set up again",
    seconds: (t) => t.partition,
    async inject({ rig, timings }) {
      rig.network.partition(rig.redisHost);
      await sleep(timings.partition);
      rig.network.heal(rig.redisHost);
      return [`${rig.redisHost.namespace} (${rig.redisHost.address}) partitioned for ${timings.partition} s`];
    },
  },
  {
    name: "hosts-shard-partition",
    model: `shard ${HOSTED_SHARD}'s Postgres host (a network namespace) cut off while the workers apply: its bridge port set down, packets dropped both ways, no RST, then set up again; the workers retry`,
    seconds: (t) => t.partition,
    async inject({ rig, timings }) {
      rig.network.partition(rig.shardHost);
      await sleep(timings.partition);
      rig.network.heal(rig.shardHost);
      return [`${rig.shardHost.namespace} (${rig.shardHost.address}) partitioned for ${timings.partition} s`];
    },
  },
  {
    name: "hosts-shard-slow-link",
    model: `shard ${HOSTED_SHARD}'s host link at ${delayMs} ms +/- ${jitterMs} ms and ${lossPercent} % loss both ways (tc netem), then healthy`,
    seconds: (t: FaultTimings) => t.slowLink,
    unavailable: () => netemUnavailable(),
    async inject({ rig, timings }) {
      rig.network.impair(rig.shardHost);
      try {
        await sleep(timings.slowLink);
      } finally {
        rig.network.restore(rig.shardHost);
      }
      return [`netem on ${rig.shardHost.namespace}'s link for ${timings.slowLink} s`];
    },
  },
];

export function findHostFault(name: HostFaultName): HostFault {
  const fault = HOST_FAULTS.find((candidate) => candidate.name === name);
  if (!fault) throw new Error(`unknown host fault ${name}`);
  return fault;
}
