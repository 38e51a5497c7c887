// Issue 35's cluster master partition, short: the faults --hosts rig on a Redis Cluster (3 masters and a replica
// each, every node on a host of its own) with REDIS_WAIT_REPLICAS=1, shop clients paying and retrying with the
// same Idempotency-Key; a master is cut from its replica and the other masters (iptables, both ways) while the
// intakes and the workers still reach it, until its replica is promoted; then healed, and the old master rejoins
// as a replica. Afterwards every 202 is applied exactly once and the wallets add up. A machine that cannot make
// namespaces fails this file with what it lacks.
import { describe, expect, it } from "vitest";
import { partitionClusterMaster } from "../src/faults/hosts/cluster-master-partition.ts";
import { FAILED_NOTE } from "../src/faults/hosts/failed-note.ts";
import { acceptedAtLeast, auditShopLoad, hostsRigForFile, startShopLoad } from "./support/rig-shop-load.ts";

const USERS = 10;
const RATE = 40;
/** At least this long; longer until the replica is promoted (cluster-node-timeout 3 s, then an election). */
const PARTITION_SECONDS = 4;
const rigOf = hostsRigForFile({ redis: "cluster", waitReplicas: 1 });

describe("a cluster master cut from its replica and the majority, REDIS_WAIT_REPLICAS=1", () => {
  it("is failed over, rejoins as a replica after the heal, and every 202 is applied exactly once", async () => {
    const rig = rigOf();
    const client = await startShopLoad(rig, USERS, RATE);
    const before = await acceptedAtLeast(client, RATE, "payments accepted before the cut");
    const notes = await partitionClusterMaster(rig.redisCluster!, rig.waitReplicas, PARTITION_SECONDS);
    await acceptedAtLeast(client, client.acceptedKeys + RATE, "payments accepted after the heal");
    await client.stop();
    const { audit, wallets } = await auditShopLoad(rig, client);

    // The failover happened: the replica was promoted, and the old master came back as a replica.
    expect(notes.filter((note) => note.startsWith(FAILED_NOTE))).toEqual([]);
    expect(notes.join(" ")).toMatch(/promoted after \d/);
    expect(before).toBeGreaterThan(0);
    expect(audit.accepted).toBeGreaterThan(before);
    // Some requests met the failover: answered 503 and retried with their key.
    expect(client.counts.attempts).toBeGreaterThan(client.counts.keys);
    expect(audit.examples).toEqual({ lost: [], appliedTwice: [] });
    expect(audit).toMatchObject({ lost: 0, appliedTwice: 0, keysWithTwoIds: 0, foreignRows: 0 });
    expect(wallets.difference).toBe(0);
  }, 240_000);
});
