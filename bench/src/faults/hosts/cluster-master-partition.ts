// A Redis Cluster master cut from its replica and the other masters while the intakes and the workers still
// reach it (issue 35): the minority side of a partition. It keeps answering its clients until it notices it
// lost the majority (about cluster-node-timeout: then CLUSTERDOWN); meanwhile the majority fails it over and its
// replica is promoted without whatever the old master took since the cut. At the heal the old master learns
// of the newer configuration and becomes a replica of the promoted one, dropping what it alone held. With
// REDIS_WAIT_REPLICAS=1 no 202 may be lost (an intake answers 503 for what no replica confirmed, and a worker
// applies nothing a replica did not confirm); with 0 the requests the old master took and no worker applied
// before it stopped are lost, and counted.
import { log } from "../../harness/progress-line.ts";
import { FAILED_NOTE } from "./failed-note.ts";
import { cutLinks } from "./host-link-cut.ts";
import { CLUSTER_NODE_TIMEOUT_MS, type NamespacedRedisCluster } from "./namespaced-redis-cluster.ts";

/** The victim: whichever master serves this slot when the fault begins. */
const VICTIM_SLOT = 0;
/** Longest partition: a replica not promoted by then fails the fault. */
const PROMOTION_WAIT_MS = 60_000;
/** Longest wait, after the heal, for the old master to rejoin as a replica and the cluster to be whole. */
const REJOIN_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cuts the master for `partitionSeconds`, longer if its replica is not promoted by then (at most
 * PROMOTION_WAIT_MS), heals, and waits for the old master to rejoin as a replica; returns the fault's notes
 * (a FAILED_NOTE when the promotion or the rejoin did not happen). */
export async function partitionClusterMaster(
  cluster: NamespacedRedisCluster,
  waitReplicas: number,
  partitionSeconds: number,
): Promise<string[]> {
  const { master, replicas } = await cluster.masterOf(VICTIM_SLOT);
  const replica = replicas[0];
  if (replica === undefined)
    return [`${FAILED_NOTE} the master of slot ${VICTIM_SLOT} has no replica to promote`];
  const others = cluster.nodes.filter((node) => node !== master);
  const cut = cutLinks(
    master.host,
    others.map((node) => node.host),
  );
  const cutAt = Date.now();
  log(
    `cluster master ${master.address} (slot ${VICTIM_SLOT}) cut from its replica ${replica.address} and the other Redis hosts`,
  );
  let promotedAfterMs: number | null = null;
  let oldMasterRefusedAfterMs: number | null = null;
  try {
    for (;;) {
      const elapsed = Date.now() - cutAt;
      if (elapsed >= partitionSeconds * 1000 && (promotedAfterMs !== null || elapsed >= PROMOTION_WAIT_MS))
        break;
      if (promotedAfterMs === null && (await cluster.role(replica)) === "master")
        promotedAfterMs = Date.now() - cutAt;
      if (oldMasterRefusedAfterMs === null && !(await cluster.stateOk(master)))
        oldMasterRefusedAfterMs = Date.now() - cutAt;
      await sleep(200);
    }
  } finally {
    cut.heal();
  }
  const healedAt = Date.now();
  const cutSeconds = (healedAt - cutAt) / 1000;
  let rejoinedAfterMs: number | null = null;
  while (Date.now() - healedAt < REJOIN_WAIT_MS) {
    if ((await cluster.role(master)) === "slave" && (await cluster.healthy())) {
      rejoinedAfterMs = Date.now() - healedAt;
      break;
    }
    await sleep(200);
  }
  const seconds = (ms: number | null) => (ms === null ? "never" : `${(ms / 1000).toFixed(1)} s`);
  const notes = [
    `master ${master.address} (${master.host.namespace}, slot ${VICTIM_SLOT}) cut from its replica ${replica.address} and the ${others.length - 1} other Redis hosts (iptables INPUT DROP both ways) for ${cutSeconds.toFixed(1)} s, the intakes and workers still reaching it; cluster-node-timeout ${CLUSTER_NODE_TIMEOUT_MS} ms; REDIS_WAIT_REPLICAS=${waitReplicas}`,
    `cut at ${new Date(cutAt).toISOString()}, healed at ${new Date(healedAt).toISOString()}; the old master refused queries (CLUSTERDOWN) after ${seconds(oldMasterRefusedAfterMs)}; its replica was promoted after ${seconds(promotedAfterMs)}; after the heal the old master was a replica of it, and every node's cluster_state ok, after ${seconds(rejoinedAfterMs)}`,
  ];
  if (promotedAfterMs === null)
    notes.push(`${FAILED_NOTE} the replica was not promoted within ${PROMOTION_WAIT_MS / 1000} s of the cut`);
  if (rejoinedAfterMs === null)
    notes.push(
      `${FAILED_NOTE} the old master did not rejoin as a replica within ${REJOIN_WAIT_MS / 1000} s of the heal`,
    );
  return notes;
}
