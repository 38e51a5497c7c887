// The admission leader's lease, epoch and loop, written once and run against one Redis (admission-leader.test.ts)
// and against a Redis Cluster (admission-leader-cluster.test.ts): the same behaviour is expected of both.
import { holdLease } from "@floodgate/redis-scripts";
import { afterEach, describe, expect, it } from "vitest";
import {
  AdmissionLeader,
  countRoomTraffic,
  holdLeaderLease,
  joinRoom,
  type TicketState,
} from "../../src/index.ts";
import { type RoomTestKit, sleep } from "./room-test-kit.ts";

/** A join (the room's slot only: the client address's limit is the caller's side command). */
export async function joinTicket(kit: RoomTestKit, roomId: string, userId: string): Promise<TicketState> {
  const outcome = await joinRoom(kit.redis, kit.keys, { roomId, userId });
  if (outcome.result !== "joined" && outcome.result !== "existing")
    throw new Error(`join: ${outcome.result}`);
  return outcome.ticket;
}

export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(25);
  }
}

/** Gives the lease up (a 1 ms lease) and lets it lapse. */
async function release(kit: RoomTestKit, holderId: string) {
  await holdLeaderLease(kit.redis, kit.keys, holderId, 1);
  await sleep(5);
}

export function leaderCases(kit: () => RoomTestKit) {
  describe("the leader's lease", () => {
    it("names a higher epoch for every new holder, the same one while a holder renews, and 0 to the others", async () => {
      const { redis, keys } = kit();
      const first = await holdLeaderLease(redis, keys, "lease-a", 60_000);
      expect(first).toBeGreaterThanOrEqual(1);
      expect(await holdLeaderLease(redis, keys, "lease-a", 60_000)).toBe(first);
      expect(await holdLeaderLease(redis, keys, "lease-b", 60_000)).toBe(0);
      expect(await redis.get(keys.leaderLease())).toBe("lease-a");
      await release(kit(), "lease-a");
      const second = await holdLeaderLease(redis, keys, "lease-b", 60_000);
      expect(second).toBe(first + 1);
      // Refused by a room that saw a later epoch: the holder's epoch goes past it (the counter can only be behind
      // a room when a fail-over lost its last write); anyone else is told 0 and raises nothing.
      expect(await holdLeaderLease(redis, keys, "lease-a", 60_000, second + 10)).toBe(0);
      expect(await holdLeaderLease(redis, keys, "lease-b", 60_000)).toBe(second);
      expect(await holdLeaderLease(redis, keys, "lease-b", 60_000, second + 10)).toBe(second + 11);
      expect(await holdLeaderLease(redis, keys, "lease-b", 60_000)).toBe(second + 11);
      await release(kit(), "lease-b");
    });

    it("is the lease the previous release holds (hold-lease-1): during a rolling upgrade one process leads", async () => {
      const { redis, keys } = kit();
      const previous = { leaseKey: keys.leaderLease(), holderId: "previous-release" };
      expect(await holdLease.run(redis, { ...previous, leaseMs: 60_000 })).toEqual({ held: true });
      expect(await holdLeaderLease(redis, keys, "this-release", 60_000)).toBe(0);
      await holdLease.run(redis, { ...previous, leaseMs: 1 });
      await sleep(5);
      expect(await holdLeaderLease(redis, keys, "this-release", 60_000)).toBeGreaterThan(0);
      expect(await holdLease.run(redis, { ...previous, leaseMs: 60_000 })).toEqual({ held: false });
      await release(kit(), "this-release");
    });
  });

  describe("the leader's loop", () => {
    const running: AdmissionLeader[] = [];
    const warnings: string[] = [];
    const startLeader = (instanceId: string) => {
      const leader = new AdmissionLeader({
        redis: kit().redis,
        keys: kit().keys,
        queueKeys: kit().queueKeys,
        instanceId,
        backpressureSeconds: 0,
        cooldownMs: 60_000,
        log: { warn: (_, message) => warnings.push(message), info: () => {} },
      });
      running.push(leader);
      leader.start();
      return leader;
    };
    afterEach(async () => {
      for (const leader of running.splice(0)) await leader.stop();
    });

    const fill = async (roomId: string, users: number) => {
      const joined: string[] = [];
      for (let i = 0; i < users; i++)
        joined.push((await joinTicket(kit(), roomId, `${roomId}-${i}`)).ticketId);
      return joined;
    };

    it("admits a room's users in join order, each once", async () => {
      await kit().defineRoom("led", { admitPerSecond: 50 });
      const joined = await fill("led", 20);
      const leader = startLeader("leader-one");
      await eventually(() => kit().admittedOrder("led").length >= 20, "all 20 admitted");
      expect(leader.epoch).toBeGreaterThan(0);
      expect(kit().admittedOrder("led")).toEqual(joined);
      expect(await kit().redis.hget(kit().keys.room("led").state, "leaderEpoch")).toBe(String(leader.epoch));
      // No round failed (the backlog's measurement, whatever became of it, does not fail the rooms' ticks).
      expect(warnings.filter((message) => message.includes("tick failed"))).toEqual([]);
    });

    it("hands over to a successor with a higher epoch, whose rooms refuse the deposed epoch's tick", async () => {
      await kit().defineRoom("handed-over", { admitPerSecond: 10 });
      const joined = await fill("handed-over", 30);
      const first = startLeader("first");
      await eventually(() => first.leading, "the first process to lead");
      const second = startLeader("second");
      await eventually(() => kit().admittedOrder("handed-over").length >= 5, "the first admissions");
      const deposed = first.epoch;
      expect(second.leading).toBe(false);
      await first.stop(); // gives the lease up at once
      await eventually(() => second.leading, "the successor to lead");
      expect(second.epoch).toBeGreaterThan(deposed);
      await eventually(
        async () =>
          (await kit().redis.hget(kit().keys.room("handed-over").state, "leaderEpoch")) ===
          String(second.epoch),
        "the successor's first tick of the room",
      );
      const before = kit().admittedOrder("handed-over").length;
      expect(await kit().tickOutcome("handed-over", { epoch: deposed })).toEqual({
        result: "deposed",
        roomEpoch: second.epoch,
      });
      expect(before).toBeLessThan(30); // the successor admits the rest
      await eventually(() => kit().admittedOrder("handed-over").length >= 30, "all 30 admitted");
      expect(kit().admittedOrder("handed-over")).toEqual(joined);
    });

    it("mirrors whether a room queues into every partition: after the tick that changes it, and again as a repair", async () => {
      await kit().defineRoom("mirrored-auto", { mode: "auto", admitPerSecond: 3 });
      const { redis, keys } = kit();
      const gates = keys.roomGates("mirrored-auto");
      const mirror = async () => (await Promise.all(gates.map((key) => redis.get(key)))).join("");
      startLeader("mirror-writer");
      await eventually(async () => (await mirror()) === "0".repeat(gates.length), "the calm room mirrored");
      // Guarded traffic above admitPerSecond, as the intakes flush it: the room starts queueing.
      await countRoomTraffic(redis, keys, "mirrored-auto", 10);
      await eventually(
        async () => (await mirror()) === "1".repeat(gates.length),
        "the queueing room mirrored",
      );
      // A copy lost (a failed-over node, a deposed leader's late write) is written again within a second.
      await redis.set(gates[0]!, "0");
      await eventually(async () => (await redis.get(gates[0]!)) === "1", "the lost copy repaired");
    });

    it("goes past a room's epoch when the counter fell behind it (a fail-over lost its last write), and admits", async () => {
      await kit().defineRoom("ahead", { admitPerSecond: 50 });
      const joined = await fill("ahead", 5);
      const { redis, keys } = kit();
      const counter = Number(await redis.get(keys.leaderEpoch()));
      await redis.hset(keys.room("ahead").state, "leaderEpoch", counter + 100);
      const leader = startLeader("behind");
      await eventually(() => kit().admittedOrder("ahead").length >= 5, "all 5 admitted");
      expect(kit().admittedOrder("ahead")).toEqual(joined);
      expect(leader.epoch).toBe(counter + 101);
      expect(Number(await redis.get(keys.leaderEpoch()))).toBe(counter + 101);
    });
  });
}
