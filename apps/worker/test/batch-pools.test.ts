// The worker's shard pools make a batch find its wallets by index, not by reading the whole wallets table: with
// Postgres' default random_page_cost the planner scanned a shard's wallets twice per batch (batch-pools.ts).
// Counted with the table's own scan statistics, on a shard of 30,000 wallets and a batch of 500 payments.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyShardBatch } from "../src/apply-shard-batch.ts";
import { batchPoolOptions } from "../src/batch-pools.ts";
import { operationMessage } from "./support/accept-operations.ts";
import { waitFor } from "./support/wait-for.ts";

const WALLETS = 30_000;
const BATCH = 500;

let env: TestEnvironment;
let observer: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("batch-pools", { shards: 1 });
  observer = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 1 });
  await sql`insert into wallets (user_id, balance)
            select 'pool-user-' || i, 1000 from generate_series(1, ${WALLETS}::int) as i`.execute(observer);
  await sql`analyze wallets`.execute(observer);
});

afterAll(async () => {
  await observer?.destroy();
  await env?.cleanup();
});

const walletScans = async () => {
  const { rows } = await sql<{ seq: string; idx: string }>`
    select seq_scan as seq, coalesce(idx_scan, 0) as idx from pg_stat_user_tables where relname = 'wallets'`.execute(
    observer,
  );
  return { seq: Number(rows[0]!.seq), idx: Number(rows[0]!.idx) };
};

let nextUser = 1;
/** Applies a batch of BATCH payments (one per wallet not used before) through `db`; returns the wallet scans. */
async function scansOfOneBatch(db: Kysely<ShardDatabase>) {
  const messages = Array.from({ length: BATCH }, () =>
    operationMessage({ kind: "payment", userId: `pool-user-${nextUser++}`, amount: 1 }),
  );
  const before = await walletScans();
  const result = await applyShardBatch(db, messages);
  expect(result.applied.filter((a) => a.status === "succeeded")).toHaveLength(BATCH);
  // A backend reports its table statistics at most once a second unless told to; `db` has one connection.
  await sql`select pg_stat_force_next_flush()`.execute(db);
  let after = before;
  await waitFor(async () => {
    after = await walletScans();
    return after.seq !== before.seq || after.idx !== before.idx;
  }, "the batch's wallet scans in pg_stat_user_tables");
  return { seq: after.seq - before.seq, idx: after.idx - before.idx };
}

describe("the worker's shard pools", () => {
  it("lock and update a batch's wallets by index on a shard of 30,000 wallets", async () => {
    const db = createKysely<ShardDatabase>(env.config.shardUrls[0]!, {
      ...batchPoolOptions(env.config, "batch-pools-test"),
      max: 1,
    });
    try {
      const scans = await scansOfOneBatch(db);
      expect(scans.seq).toBe(0);
      expect(scans.idx).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }
  });

  it("(control) with random_page_cost at Postgres' default, the same batch reads the whole table", async () => {
    const db = createKysely<ShardDatabase>(env.config.shardUrls[0]!, {
      ...batchPoolOptions(env.config, "batch-pools-test"),
      randomPageCost: 4,
      max: 1,
    });
    try {
      const scans = await scansOfOneBatch(db);
      expect(scans.seq).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }
  });
});
