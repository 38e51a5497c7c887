// The first ETA of a fresh room (issue 31, "an honest first ETA"): a room that just opened has admitted for a
// second or two, and the wait it tells its first shoppers comes from the room's own rate until the measured one
// spans MIN_MEASURED_SECONDS. Against the real Redis, with the leader's tick run by hand.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  etaSeconds,
  joinRoom,
  laneEtaSeconds,
  MIN_MEASURED_SECONDS,
  readRoomStats,
  readTicket,
} from "../src/index.ts";
import { RoomTestKit, sleep } from "./support/room-test-kit.ts";

let env: TestEnvironment;
let kit: RoomTestKit;

beforeAll(async () => {
  env = await createTestEnvironment("room-eta", { shards: 1 });
  kit = await RoomTestKit.start(env.config);
  await kit.lead();
});

afterAll(async () => {
  await kit?.stop();
  await env?.cleanup();
});

/** The epoch seconds the room's admissions were counted in (the leader's Redis clock). */
const admittedSeconds = async (roomId: string) =>
  (await kit.redis.hkeys(kit.keys.room(roomId).admits)).map(Number).sort((a, b) => a - b);

describe("a fresh room's ETA", () => {
  it("tells its first shoppers the wait at the room's own rate, not at a rate spread over 10 s", async () => {
    await kit.defineRoom("fresh", { admitPerSecond: 2 });
    const tickets = [];
    for (let i = 0; i < 40; i++) {
      const outcome = await joinRoom(kit.redis, kit.keys, { roomId: "fresh", userId: `fresh-${i}` });
      if (outcome.result !== "joined") throw new Error(`join: ${outcome.result}`);
      tickets.push(outcome.ticket);
    }
    // The room opens: its ticks admit the head as its allowance grows (by elapsed time: 2/s here).
    let admitted = 0;
    for (let i = 0; i < 100 && admitted === 0; i++) {
      admitted += (await kit.tick("fresh"))?.admitted ?? 0;
      if (admitted === 0) await sleep(30);
    }
    expect(admitted).toBeGreaterThan(0);
    const seconds = await admittedSeconds("fresh");
    const first = seconds[0]!;
    const lastSecond = seconds.at(-1)!;

    // The next second, the room has admitted for a second or two.
    const stats = await readRoomStats(kit.redis, kit.keys, "fresh", (lastSecond + 1) * 1000);
    expect(stats.measuredSeconds).toBe(lastSecond - first + 1);
    expect(stats.measuredSeconds).toBeLessThan(MIN_MEASURED_SECONDS);
    expect(stats.measuredAdmitRate).toBe(admitted / stats.measuredSeconds);
    const last = await readTicket(kit.redis, kit.keys, "fresh", tickets[39]!.ticketId);
    const position = last!.position!;
    expect(position).toBe(40 - admitted);
    // At the room's 2/s: position / 2. Over 10 s the one second's admissions made it five times that or more.
    expect(etaSeconds(position, stats, 2)).toBe(Math.ceil(position / 2));
    const spreadOverTen = { measuredAdmitRate: admitted / 10, measuredSeconds: 10 };
    expect(etaSeconds(position, spreadOverTen, 2)).toBeGreaterThanOrEqual(5 * Math.ceil(position / 2) - 5);
  });

  it("counts only the seconds since the room began admitting, and trusts the measure once it spans enough", async () => {
    await kit.defineRoom("warm", { admitPerSecond: 4 });
    const now = Math.floor(Date.now() / 1000);
    // Admissions counted in the last three whole seconds, none before (the room opened three seconds ago).
    await kit.redis.hset(kit.keys.room("warm").admits, {
      [String(now - 3)]: 3,
      [String(now - 2)]: 3,
      [String(now - 1)]: 3,
    });
    const stats = await readRoomStats(kit.redis, kit.keys, "warm", now * 1000);
    expect(stats).toMatchObject({ measuredSeconds: 3, measuredAdmitRate: 3, admittedLastMinute: 9 });
    expect(MIN_MEASURED_SECONDS).toBe(3);
    // Measured over 3 s: its 3/s, not the configured 4/s.
    expect(etaSeconds(30, stats, 4)).toBe(10);
    // Over fewer seconds than that, the configured rate.
    expect(etaSeconds(30, { measuredAdmitRate: 3, measuredSeconds: 2 }, 4)).toBe(8);
    // Nothing admitted lately (a pause): the configured rate too.
    expect(etaSeconds(30, { measuredAdmitRate: 0, measuredSeconds: 0 }, 4)).toBe(8);
  });
});

describe("a lane's ETA", () => {
  const unmeasured = { measuredAdmitRate: 0, measuredSeconds: 0 };
  const members = { admitPerSecond: 4, lanes: [{ name: "members", share: 0.25 }] };

  it("moves at its share of the room's rate among the lanes with someone waiting", async () => {
    // Both waiting: the default queue's share is 0.75, the members' 0.25.
    const both = { ...unmeasured, laneWaiting: [30, 6] };
    expect(laneEtaSeconds(30, 0, both, members)).toBe(10); // 30 / (4 x 0.75)
    expect(laneEtaSeconds(6, 1, both, members)).toBe(6); // 6 / (4 x 0.25)
    // Nobody in the members' lane: the default queue has the whole rate.
    expect(laneEtaSeconds(30, 0, { ...unmeasured, laneWaiting: [30, 0] }, members)).toBe(8);
    // A room without lanes: etaSeconds.
    expect(laneEtaSeconds(30, 0, { ...unmeasured, laneWaiting: [] }, { admitPerSecond: 4, lanes: [] })).toBe(
      etaSeconds(30, unmeasured, 4),
    );
  });

  it("waits for the lanes before it when its share is 0, and reads the counts a room's stats hold", async () => {
    const split = {
      admitPerSecond: 4,
      lanes: [
        { name: "a", share: 0.5 },
        { name: "b", share: 0.5 },
      ],
    };
    // The default queue's share is 0: it moves once both lanes are empty, 10 + 6 ahead of its place 4.
    expect(laneEtaSeconds(4, 0, { ...unmeasured, laneWaiting: [4, 10, 6] }, split)).toBe(5);
    // Both lanes empty: the default queue alone, at the whole rate.
    expect(laneEtaSeconds(4, 0, { ...unmeasured, laneWaiting: [4, 0, 0] }, split)).toBe(1);
    // A lane the room no longer names goes after the named ones.
    expect(laneEtaSeconds(2, 3, { ...unmeasured, laneWaiting: [4, 10, 6] }, split)).toBe(6);

    await kit.defineRoom("laned-eta", { admitPerSecond: 4, lanes: split.lanes });
    await joinRoom(kit.redis, kit.keys, { roomId: "laned-eta", userId: "plain" });
    for (const [userId, lane] of [
      ["a-0", "a"],
      ["a-1", "a"],
      ["b-0", "b"],
    ] as const)
      await joinRoom(kit.redis, kit.keys, { roomId: "laned-eta", userId, pass: { kind: "lane", lane } });
    const stats = await readRoomStats(kit.redis, kit.keys, "laned-eta", Date.now(), split.lanes.length);
    expect(stats.laneWaiting).toEqual([1, 2, 1]);
    expect((await readRoomStats(kit.redis, kit.keys, "laned-eta")).laneWaiting).toEqual([]);
  });
});
