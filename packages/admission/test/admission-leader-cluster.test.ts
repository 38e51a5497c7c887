// The admission leader and room definitions on a real Redis Cluster (3 masters, 3 replicas, private ports):
// every command they send stays in one slot. The leader's cases of admission-leader.test.ts run here too: a
// room defined, ticked by a leader, admitting its users; a hand-over after which the deposed epoch is refused.
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdLeaderLease, readRoomDefinition, readRoomStats, readTicket } from "../src/index.ts";
import { joinTicket, leaderCases } from "./support/leader-cases.ts";
import { RoomTestKit } from "./support/room-test-kit.ts";

let cluster: RedisCluster;
let kit: RoomTestKit;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  kit = await RoomTestKit.start({ redisUrl: cluster.url, redisPrefix: "fgc-leader:", streamPartitions: 4 });
});

afterAll(async () => {
  await kit?.stop();
  await cluster?.stop();
});

describe("on a Redis Cluster", () => {
  it("keeps the leader's lease and its epoch in one slot", async () => {
    const slot = async (key: string) => (await kit.redis.cluster("KEYSLOT", key)) as number;
    expect(await slot(kit.keys.leaderEpoch())).toBe(await slot(kit.keys.leaderLease()));
    expect(await holdLeaderLease(kit.redis, kit.keys, "slot-check", 60_000)).toBeGreaterThan(0);
    await holdLeaderLease(kit.redis, kit.keys, "slot-check", 1);
  });

  it("defines a room (listed, then its keys and the reload message) and reads it back with its numbers", async () => {
    await kit.defineRoom("defined", { mode: "on", admitPerSecond: 5, guards: ["orders"] });
    expect(await kit.redis.sismember(kit.keys.rooms(), "defined")).toBe(1);
    expect(await readRoomDefinition(kit.redis, kit.keys, "defined")).toMatchObject({
      mode: "on",
      admitPerSecond: 5,
      guards: ["orders"],
    });
    const ticket = await joinTicket(kit, "defined", "reader");
    expect(await readTicket(kit.redis, kit.keys, "defined", ticket.ticketId)).toMatchObject({
      status: "waiting",
      position: 1,
    });
    expect(await readRoomStats(kit.redis, kit.keys, "defined")).toMatchObject({ queueing: true, waiting: 1 });
  });
});

leaderCases(() => kit);
