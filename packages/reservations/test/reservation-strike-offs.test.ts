// A commit's reservation is struck off after the answer; those of one turn of the event loop go as one ZREM per
// list (reservation-strike-offs.ts). The connection is the real one, watched: every call reaches Redis.

import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { strikeOffReservation } from "../src/reservation-strike-offs.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;

beforeAll(async () => {
  env = await createTestEnvironment("reservation-strike-offs", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

/** The real connection, its ZREM calls recorded on the way. */
function watched(connection: ScriptedRedis) {
  const zrems: string[][] = [];
  const proxy = new Proxy(connection, {
    get(target, property) {
      if (property === "zrem") {
        return (key: string, ...members: string[]) => {
          zrems.push([key, ...members]);
          return target.zrem(key, ...members);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { connection: proxy, zrems };
}

async function until(condition: () => Promise<boolean>) {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("strikeOffReservation", () => {
  it("strikes off one turn's members with one ZREM per list, and a later turn's with another", async () => {
    const { connection, zrems } = watched(redis);
    const first = keys.productReservations("prd_strike_first");
    const second = keys.couponReservations("cpn_strike_second");
    await redis.zadd(first, 1, "o1 u1 1", 2, "o2 u2 1", 3, "o3 u3 2", 4, "kept u4 1");
    await redis.zadd(second, 1, "c1 u1", 2, "c2 u2");

    for (const member of ["o1 u1 1", "o2 u2 1", "o3 u3 2"]) strikeOffReservation(connection, first, member);
    strikeOffReservation(connection, second, "c1 u1");
    expect(zrems).toEqual([]); // nothing sent before the turn ends
    await until(async () => (await redis.zcard(first)) === 1 && (await redis.zcard(second)) === 1);
    expect(zrems).toEqual([
      [first, "o1 u1 1", "o2 u2 1", "o3 u3 2"],
      [second, "c1 u1"],
    ]);
    expect(await redis.zrange(first, 0, -1)).toEqual(["kept u4 1"]);

    strikeOffReservation(connection, second, "c2 u2");
    await until(async () => (await redis.zcard(second)) === 0);
    expect(zrems).toHaveLength(3);
    expect(zrems[2]).toEqual([second, "c2 u2"]);
  });
});
