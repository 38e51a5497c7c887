// The mover on a stopped system, table by table: a bucket's rows of every user table (an order with its items,
// a coupon issue, payments, deposits, the wallet) end on the new shard only, identical, the map names the new
// shard, the old one is fenced, and other buckets' rows stay where they were.
import { createKysely, type GlobalDatabase, readShardMap, type ShardDatabase } from "@floodgate/db";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReconcile } from "../run-reconcile.ts";
import { moveBuckets } from "./bucket-mover.ts";
import { USER_TABLES } from "./bucket-rows.ts";

let env: TestEnvironment;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
const lines: string[] = [];

const contiguous = ShardMap.contiguous(2);
const usersOnShard0 = Array.from({ length: 2000 }, (_, i) => `offline-${i}`).filter(
  (u) => contiguous.shardForBucket(bucketForUser(u)) === 0,
);
const mover = usersOnShard0[0]!;
const bucket = bucketForUser(mover);
const stayer = usersOnShard0.find((u) => bucketForUser(u) !== bucket)!;

async function seed(db: Kysely<ShardDatabase>, userId: string) {
  const now = new Date();
  await db.insertInto("wallets").values({ user_id: userId, balance: 700 }).execute();
  await db
    .insertInto("deposits")
    .values({
      id: `d-${userId}`,
      user_id: userId,
      amount: 1000,
      currency: "EUR",
      status: "succeeded",
      failure_reason: null,
      created_at: now,
    })
    .execute();
  await db
    .insertInto("orders")
    .values({
      id: `o-${userId}`,
      user_id: userId,
      status: "paid",
      failure_reason: null,
      amount: 300,
      discount: 50,
      currency: "EUR",
      coupon_issue_id: `c-${userId}`,
      payment_id: `p-${userId}`,
      expires_at: now,
      created_at: now,
    })
    .execute();
  await db
    .insertInto("order_items")
    .values([
      { order_id: `o-${userId}`, line: 0, product_id: "prod-a", quantity: 2, unit_price: 100 },
      { order_id: `o-${userId}`, line: 1, product_id: "prod-b", quantity: 1, unit_price: 150 },
    ])
    .execute();
  await db
    .insertInto("payments")
    .values({
      id: `p-${userId}`,
      user_id: userId,
      amount: 300,
      currency: "EUR",
      status: "succeeded",
      failure_reason: null,
      created_at: now,
      order_id: `o-${userId}`,
    })
    .execute();
  await db
    .insertInto("issued_coupons")
    .values({
      id: `c-${userId}`,
      coupon_id: "coupon-1",
      user_id: userId,
      status: "used",
      used_at: now,
      order_id: `o-${userId}`,
      created_at: now,
    })
    .execute();
  await db
    .insertInto("refunds")
    .values({
      id: `r-${userId}`,
      payment_id: `p-${userId}`,
      user_id: userId,
      amount: 100,
      currency: "EUR",
      reason: null,
      restock: false,
      status: "succeeded",
      failure_reason: null,
      created_at: now,
      completed_at: now,
    })
    .execute();
}

async function rowsOf(db: Kysely<ShardDatabase>, userId: string) {
  const out: Record<string, unknown[]> = {};
  for (const table of USER_TABLES) {
    out[table] =
      table === "order_items"
        ? await db
            .selectFrom("order_items")
            .selectAll()
            .where("order_id", "=", `o-${userId}`)
            .orderBy("line")
            .execute()
        : await db.selectFrom(table).selectAll().where("user_id", "=", userId).execute();
  }
  return out;
}

beforeAll(async () => {
  env = await createTestEnvironment("bucket-mover", { shards: 2 });
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 2 }));
  await seed(shards[0]!, mover);
  await seed(shards[0]!, stayer);
});

afterAll(async () => {
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

describe("moveBuckets on a stopped system", () => {
  it("moves every table's rows of the bucket to the new shard, identical, and only those", async () => {
    const before = await rowsOf(shards[0]!, mover);
    expect(Object.values(before).every((rows) => rows.length > 0)).toBe(true);
    const stayerBefore = await rowsOf(shards[0]!, stayer);

    await moveBuckets({ global, shards }, [{ bucket, from: 0, to: 1 }], (line) => lines.push(line));

    expect(await rowsOf(shards[1]!, mover)).toEqual(before);
    const left = await rowsOf(shards[0]!, mover);
    expect(Object.values(left).flat()).toEqual([]);
    expect(await rowsOf(shards[0]!, stayer)).toEqual(stayerBefore);
    expect(lines).toContain(`bucket ${bucket}: 8 rows deleted from shard 0`);
    expect(lines[0]).toMatch(
      new RegExp(`^bucket ${bucket}: shard 0 -> 1: 1 users, 8 rows copied and verified`),
    );
  });

  it("gives the bucket to the new shard in the map, fences the old shard, and leaves no move recorded", async () => {
    const { map, paused } = await readShardMap(global, 2);
    expect(map.shardForBucket(bucket)).toBe(1);
    expect(map.shardForBucket(bucketForUser(stayer))).toBe(0);
    expect(paused.size).toBe(0);
    expect(await shards[0]!.selectFrom("moved_buckets").select(["bucket", "to_shard"]).execute()).toEqual([
      { bucket, to_shard: 1 },
    ]);
    expect(await global.selectFrom("shard_moves").selectAll().execute()).toEqual([]);
  });

  it("makes reconcile refuse to run while a move is unfinished (its rows may be on two shards)", async () => {
    await global
      .insertInto("shard_moves")
      .values({ bucket: 3, from_shard: 0, to_shard: 1, phase: "switched" })
      .execute();
    try {
      await expect(runReconcile(env.config, { dryRun: true })).rejects.toThrow(
        /1 bucket move\(s\) unfinished/,
      );
    } finally {
      await global.deleteFrom("shard_moves").execute();
    }
  });
});
