// The race the move protocol closes, made rather than waited for: a worker batch in flight on the old shard
// while the mover fences its bucket, and a batch that starts while the fence is being written. The mover waits
// for the first; the second is refused once the fence commits, whatever map the worker holds.
import { BUCKET_LOCK_SPACE, createKysely, type ShardDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BucketMovedError, withBucketFence } from "../../../worker/src/bucket-fence.ts";
import { fenceBucket } from "./bucket-mover.ts";

let env: TestEnvironment;
let worker: Kysely<ShardDatabase>;
let mover: Kysely<ShardDatabase>;
let observer: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("bucket-fence", { shards: 1 });
  const url = env.config.shardUrls[0]!;
  worker = createKysely<ShardDatabase>(url, { max: 2 });
  mover = createKysely<ShardDatabase>(url, { max: 2 });
  observer = createKysely<ShardDatabase>(url, { max: 1 });
});

afterAll(async () => {
  await Promise.all([worker, mover, observer].map((db) => db?.destroy()));
  await env?.cleanup();
});

/** Advisory lock requests on `bucket` not granted yet (someone waits for it). */
async function waitingFor(bucket: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks
    where locktype = 'advisory' and classid = ${BUCKET_LOCK_SPACE} and objid = ${bucket} and not granted
  `.execute(observer);
  return rows[0]!.n;
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the bucket fence", () => {
  it("makes the mover wait for a batch in flight on the bucket, and refuses the batches after it", async () => {
    let finishBatch!: () => void;
    const batchHeld = new Promise<void>((resolve) => {
      finishBatch = resolve;
    });
    let applied = false;
    let fenced = false;
    let fencing: Promise<void> | undefined;
    const batch = withBucketFence(worker, [7, 8], async (connection) => {
      // The batch holds its buckets' locks here: the mover starts now and must wait for it.
      fencing = fenceBucket(mover, { bucket: 7, from: 0, to: 1 }).then(() => {
        fenced = true;
      });
      await until(async () => (await waitingFor(7)) > 0);
      await sql`insert into wallets (user_id, balance) values ('in-flight', 10)`.execute(connection);
      applied = true;
      await batchHeld;
    });
    await until(async () => applied);
    expect(fenced).toBe(false);
    finishBatch();
    await Promise.all([batch, fencing]);
    expect(fenced).toBe(true);

    await expect(withBucketFence(worker, [7], async () => "applied")).rejects.toBeInstanceOf(
      BucketMovedError,
    );
    expect(await withBucketFence(worker, [8], async () => "applied")).toBe("applied"); // other buckets go on
  });

  it("refuses a batch that waited for the lock while the fence was being written", async () => {
    const fence = await mover.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      await sql`select pg_advisory_xact_lock(${BUCKET_LOCK_SPACE}::int, 9)`.execute(connection);
      await sql`insert into moved_buckets (bucket, to_shard) values (9, 1)`.execute(connection);
      // Its outcome is taken at once: the refusal can come before the commit's answer is read here.
      const batch = withBucketFence(worker, [9], async () => "applied").then(
        (value) => value,
        (error: unknown) => error,
      );
      await until(async () => (await waitingFor(9)) > 0);
      await sql`commit`.execute(connection);
      return batch;
    });
    expect(fence).toBeInstanceOf(BucketMovedError);
  });
});
