// A flash coupon drop through the real intake and two worker processes: 300 concurrent requests from 150
// users (each asks twice) for 100 coupons. Exactly 100 are issued, to 100 different users; after the drain
// the shards hold exactly the coupons Redis counted, and a redelivery records nothing twice.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createCoupon, requestIssue } from "./support/coupon-client.ts";
import { asShop, documentedInject, type IntakeApp, startIntake } from "./support/intake-client.ts";
import { deadLetters, pendingCount, pendingStatuses } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

const QUANTITY = 100;
const USERS = 150;
let env: TestEnvironment;
let app: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let shards: Kysely<ShardDatabase>[];
let workers: WorkerProcess[] = [];
let couponId: string;
const answers: { userId: string; status: number; body: Record<string, unknown> }[] = [];

interface IssuedRow {
  shard: number;
  id: string;
  coupon_id: string;
  user_id: string;
}

const issuedRows = async (): Promise<IssuedRow[]> =>
  (await unsortedRows()).sort((a, b) => (a.id < b.id ? -1 : 1));
const unsortedRows = async (): Promise<IssuedRow[]> =>
  (
    await Promise.all(
      shards.map(async (db, shard) =>
        (
          await db.selectFrom("issued_coupons").select(["id", "coupon_id", "user_id"]).execute()
        ).map((row) => ({
          shard,
          ...row,
        })),
      ),
    )
  ).flat();

beforeAll(async () => {
  env = await createTestEnvironment("coupon-drop", {
    env: { ADMIN_API_KEY: ADMIN_KEY, VISIBILITY_TIMEOUT_MS: "1000" },
  });
  app = await startIntake(env.config);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  couponId = await createCoupon(app, QUANTITY);

  // Every user twice, shuffled, all 300 at once: the two requests of one user race each other and everyone.
  const users = Array.from({ length: USERS }, (_, i) => `drop-${i}`);
  const requests = [...users, ...users].sort(() => Math.random() - 0.5);
  const responses = await Promise.all(requests.map((userId) => requestIssue(app, couponId, userId)));
  for (const [i, response] of responses.entries()) {
    answers.push({ userId: requests[i]!, status: response.statusCode, body: response.json() });
  }

  workers = await Promise.all([startWorkerProcess(env.config), startWorkerProcess(env.config)]);
  await waitFor(async () => (await issuedRows()).length >= QUANTITY, "every issued coupon to be recorded");
  await waitFor(async () => (await pendingCount(redis, keys)) === 0, "every entry to be acknowledged");
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await Promise.all((shards ?? []).map((db) => db.destroy()));
  await redis?.quit();
  await env?.cleanup();
});

const accepted = () => answers.filter((a) => a.status === 202);

describe("300 concurrent requests from 150 users for 100 coupons", () => {
  it("accepts exactly 100, for 100 different users", () => {
    expect(accepted()).toHaveLength(QUANTITY);
    expect(new Set(accepted().map((a) => a.userId)).size).toBe(QUANTITY);
    expect(new Set(accepted().map((a) => a.body.id)).size).toBe(QUANTITY);
  });

  it("answers each winner's other request 409 with its id, and every other request 410", () => {
    const winnerIds = new Map(accepted().map((a) => [a.userId, a.body.id]));
    const refused = answers.filter((a) => a.status !== 202);
    expect(refused).toHaveLength(2 * USERS - QUANTITY);
    for (const answer of refused) {
      if (winnerIds.has(answer.userId)) {
        expect([answer.status, answer.body.code, answer.body.existingId]).toEqual([
          409,
          "already_issued",
          winnerIds.get(answer.userId),
        ]);
      } else {
        expect([answer.status, answer.body.code]).toEqual([410, "sold_out"]);
      }
    }
    expect(refused.filter((a) => a.status === 409)).toHaveLength(QUANTITY);
    expect(refused.filter((a) => a.status === 410)).toHaveLength(2 * USERS - 2 * QUANTITY);
  });
});

describe("after the workers drained the queue", () => {
  it("holds exactly the accepted issues across the shards: one row each, on the user's shard", async () => {
    const rows = await issuedRows();
    const map = ShardMap.contiguous(env.config.shardUrls.length);
    expect(rows).toHaveLength(QUANTITY);
    expect(new Set(rows.map((r) => r.user_id)).size).toBe(QUANTITY);
    expect(new Set(rows.map((r) => r.coupon_id))).toEqual(new Set([couponId]));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(accepted().map((a) => a.body.id)));
    for (const row of rows) expect(row.shard).toBe(map.shardForBucket(bucketForUser(row.user_id)));
  });

  it("agrees with Redis: issued count == rows == quantity, and the holders are the row owners", async () => {
    const rows = await issuedRows();
    const coupon = await documentedInject(app, {
      method: "GET",
      url: `/v1/coupons/${couponId}`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(coupon.json()).toMatchObject({ quantity: QUANTITY, issued: rows.length, remaining: 0 });
    const holders = await redis.hgetall(keys.couponHolders(couponId));
    expect(holders).toEqual(Object.fromEntries(rows.map((r) => [r.user_id, r.id])));
  });

  it("reports every accepted issue succeeded, and dead-letters nothing", async () => {
    const ids = accepted().map((a) => a.body.id as string);
    expect(await pendingStatuses(redis, keys, ids)).toEqual([]);
    for (const id of ids.slice(0, 20)) {
      const view = (
        await documentedInject(app, { method: "GET", url: `/v1/coupon-issues/${id}`, headers: asShop(app) })
      ).json();
      expect(view).toMatchObject({ id, couponId, status: "succeeded" });
    }
    expect(await deadLetters(redis, keys)).toEqual([]);
  });

  it("records nothing twice when every issue is delivered again", async () => {
    const before = await issuedRows();
    const ids = accepted().map((a) => a.body.id as string);
    // Append each message to its stream again (what a redelivery looks like to a worker), its status reset
    // to pending so the test can see the worker handled it.
    for (const id of ids) {
      const partition = keys.partitionForOperation(id)!;
      const message = await redis.hget(keys.status(partition, id), "message");
      expect(message).not.toBeNull();
      await redis.hset(keys.status(partition, id), "status", "pending");
      await redis.xadd(keys.stream(partition), "*", "id", id, "m", message!);
    }
    await waitFor(
      async () => (await pendingStatuses(redis, keys, ids)).length === 0,
      "the redeliveries to finish",
    );
    await waitFor(async () => (await pendingCount(redis, keys)) === 0, "the redeliveries to be acknowledged");
    expect(await issuedRows()).toEqual(before);
    expect(await deadLetters(redis, keys)).toEqual([]);
  });
});
