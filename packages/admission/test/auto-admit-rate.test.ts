// `admitPerSecond: "auto"`: the rate follows what the workers apply and slows when their lag grows (the
// controller, auto-admit-rate.ts), a room ticks at the rate it is given, and the leader's loop, reading a real
// partition stream that a test worker works off at one pace and then a slower one, sets the room's rate to
// follow it down to the floor when the worker stops. Nothing here asserts a duration: the loop is waited for.
import { CONSUMER_GROUP, ensureConsumerGroups } from "@floodgate/queue";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AdmissionLeader,
  AUTO_ADMIT_FLOOR_PER_SECOND,
  AUTO_ADMIT_START_PER_SECOND,
  autoRoomShare,
  type BacklogReading,
  etaSeconds,
  holdLeaderLease,
  joinRoom,
  nextAutoAdmitRate,
  readRoomStats,
} from "../src/index.ts";
import { RoomTestKit, sleep } from "./support/room-test-kit.ts";

const reading = (backlog: number, workerRate: number | null): BacklogReading => ({
  backlog,
  workerRate,
  drainSeconds:
    backlog === 0 ? 0 : workerRate === null ? null : workerRate > 0 ? backlog / workerRate : Infinity,
});

describe("the auto admit rate", () => {
  it("is what busy workers apply, and less in proportion when their lag is over two seconds of work", () => {
    expect(nextAutoAdmitRate(10, reading(800, 400), 500)).toBe(400);
    // A slowed worker: the rate follows it down.
    expect(nextAutoAdmitRate(400, reading(100, 50), 500)).toBe(50);
    // 10 s of work queued: admissions at a fifth of the apply rate, so the lag shrinks.
    expect(nextAutoAdmitRate(400, reading(4000, 400), 500)).toBe(80);
  });

  it("falls to the floor when busy workers apply nothing (stopped, or their shard away)", () => {
    expect(nextAutoAdmitRate(400, reading(3000, 0), 500)).toBe(AUTO_ADMIT_FLOOR_PER_SECOND);
  });

  it("grows while the workers have no backlog, and holds while a backlog is too recent to measure", () => {
    expect(nextAutoAdmitRate(AUTO_ADMIT_START_PER_SECOND, reading(0, null), 1000)).toBe(
      AUTO_ADMIT_START_PER_SECOND * 2,
    );
    expect(nextAutoAdmitRate(100_000, reading(0, null), 1000)).toBe(100_000);
    expect(nextAutoAdmitRate(37, reading(50, null), 500)).toBe(37);
  });

  it("is shared by the auto rooms, none below the floor", () => {
    expect(autoRoomShare(100, 4)).toBe(25);
    expect(autoRoomShare(3, 10)).toBe(AUTO_ADMIT_FLOOR_PER_SECOND);
    expect(autoRoomShare(30, 0)).toBe(30);
  });

  it("sets the ETA of a room that has not measured its admissions yet", () => {
    const unmeasured = { measuredAdmitRate: 0, measuredSeconds: 0 };
    expect(etaSeconds(10, { ...unmeasured, autoAdmitPerSecond: 2 }, "auto")).toBe(5);
    expect(etaSeconds(10, { ...unmeasured, autoAdmitPerSecond: null }, "auto")).toBe(
      Math.ceil(10 / AUTO_ADMIT_START_PER_SECOND),
    );
  });
});

describe("a room whose admitPerSecond is auto", () => {
  let env: TestEnvironment;
  let kit: RoomTestKit;

  beforeAll(async () => {
    env = await createTestEnvironment("auto-admit-rate", { shards: 1, env: { STREAM_PARTITIONS: "2" } });
    kit = await RoomTestKit.start(env.config);
    await ensureConsumerGroups(kit.redis, kit.queueKeys);
  });

  afterAll(async () => {
    await kit?.stop();
    await env?.cleanup();
  });

  const join = async (roomId: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const outcome = await joinRoom(kit.redis, kit.keys, { roomId, userId: `${roomId}-${i}` });
      if (outcome.result !== "joined") throw new Error(`join: ${outcome.result}`);
    }
  };

  it("admits at the rate the leader gives it (at most one second's worth a tick), and none without one", async () => {
    await kit.lead();
    await kit.defineRoom("given", { admitPerSecond: "auto", mode: "on" });
    await join("given", 20);
    expect((await kit.tick("given"))?.admitted).toBe(0); // no rate given: a leader without its definition
    await sleep(1100); // the allowance fills to one second's worth of whatever rate the next tick carries
    expect((await kit.tick("given", { autoAdmitPerSecond: 3 }))?.admitted).toBe(3);
    await sleep(1100);
    expect((await kit.tick("given", { autoAdmitPerSecond: 1 }))?.admitted).toBe(1);
    expect((await readRoomStats(kit.redis, kit.keys, "given")).autoAdmitPerSecond).toBe(1);
    // Off, so the next test's room has the pipeline's rate to itself; the lease given up for its leader.
    await kit.defineRoom("given", { admitPerSecond: "auto", mode: "off" });
    await holdLeaderLease(kit.redis, kit.keys, kit.leader, 1);
  });

  it("follows a worker that slows down, to the floor when it stops", async () => {
    await kit.defineRoom("follow", { admitPerSecond: "auto", mode: "on" });
    await join("follow", 50);
    const leader = new AdmissionLeader({
      redis: kit.redis,
      keys: kit.keys,
      queueKeys: kit.queueKeys,
      instanceId: "auto-rate-leader",
      backpressureSeconds: 0,
      cooldownMs: 60_000,
      log: { warn: () => {}, info: () => {} },
    });
    const [stream] = kit.queueKeys.allStreams();
    // A test worker: every 50 ms, 12 operations arrive and it applies `pace` of them (a backlog that lasts).
    let pace = 10;
    let working = true;
    const work = (async () => {
      for (let n = 0; working; n++) {
        const pipeline = kit.redis.pipeline();
        for (let i = 0; i < 12; i++) pipeline.xadd(stream!, "*", "id", `op-${n}-${i}`, "m", "{}");
        await pipeline.exec();
        if (pace > 0) {
          const read = (await kit.redis.xreadgroup(
            "GROUP",
            CONSUMER_GROUP,
            "test-worker",
            "COUNT",
            pace,
            "STREAMS",
            stream!,
            ">",
          )) as [string, [string, string[]][]][] | null;
          const ids = read?.[0]?.[1].map(([id]) => id) ?? [];
          if (ids.length > 0) await kit.redis.xack(stream!, CONSUMER_GROUP, ...ids);
        }
        await sleep(50);
      }
    })();
    const rate = async () => (await readRoomStats(kit.redis, kit.keys, "follow")).autoAdmitPerSecond ?? 0;
    const until = async (done: (value: number) => boolean) => {
      for (let i = 0; i < 600; i++) {
        const value = await rate();
        if (done(value)) return value;
        await sleep(50);
      }
      throw new Error(`the room's auto rate never got there; last ${await rate()}`);
    };
    leader.start();
    try {
      // About 200 applied a second (10 every 50 ms, less the reads' own time): the rate comes to measure it.
      const fast = await until((value) => value > 40);
      // The worker slows to 1 every 50 ms: the rate follows it down, below what it was.
      pace = 1;
      const slow = await until((value) => value <= 25);
      expect(slow).toBeLessThan(fast);
      // The worker stops with its backlog left: the room admits at the floor.
      pace = 0;
      expect(await until((value) => value === AUTO_ADMIT_FLOOR_PER_SECOND)).toBe(AUTO_ADMIT_FLOOR_PER_SECOND);
      expect((await kit.redis.hget(kit.keys.backlogSignal(), "autoAdmitPerSecond")) ?? "").toBe(
        String(AUTO_ADMIT_FLOOR_PER_SECOND),
      );
    } finally {
      working = false;
      await work;
      await leader.stop();
    }
  });
});
