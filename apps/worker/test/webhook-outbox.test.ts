// The event rows a shard batch writes, against a real shard: every event to the events feed, whether or not an
// endpoint wants it, and to the outbox only those one does; a batch of payments and deposits records its events
// in the statement that writes its rows (no statement of their own), any other in one statement; a redelivered
// batch adds none; event ids are derived, not drawn.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { webhookEventId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyShardBatch } from "../src/apply-shard-batch.ts";
import { operationMessage } from "./support/accept-operations.ts";

let env: TestEnvironment;
let db: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("webhook-outbox", { shards: 1 });
  db = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 2 });
});

afterAll(async () => {
  await db?.destroy();
  await env?.cleanup();
});

const outbox = () => db.selectFrom("webhook_outbox").selectAll().orderBy("event_id").execute();

describe("the webhook outbox of a shard batch", () => {
  it("records the events nobody subscribes to in the feed only, in the same one statement", async () => {
    const a = operationMessage({ kind: "deposit", userId: "nobody-a", amount: 100 });
    const b = operationMessage({ kind: "deposit", userId: "nobody-b", amount: 100 });
    const without = await applyShardBatch(db, [a]);
    const other = await applyShardBatch(db, [b], { webhookEvents: new Set(["order.paid"]) });
    expect(other.statements).toBe(without.statements);
    expect(await outbox()).toEqual([]);
    const recorded = await db
      .selectFrom("events")
      .select(["event_id", "event_type", "operation_id"])
      .where("operation_id", "in", [a.id, b.id])
      .orderBy("position")
      .execute();
    expect(recorded).toEqual([
      {
        event_id: webhookEventId(a.id, "deposit.succeeded"),
        event_type: "deposit.succeeded",
        operation_id: a.id,
      },
      {
        event_id: webhookEventId(b.id, "deposit.succeeded"),
        event_type: "deposit.succeeded",
        operation_id: b.id,
      },
    ]);
  });

  it("records a batch of payments' events in the statement of its rows: BEGIN, lock, write, COMMIT", async () => {
    const funded = operationMessage({ kind: "deposit", userId: "rides-a", amount: 500 });
    await applyShardBatch(db, [funded]);
    const payments = [
      operationMessage({ kind: "payment", userId: "rides-a", amount: 200 }),
      operationMessage({ kind: "payment", userId: "rides-a", amount: 400 }), // more than is left
    ];
    const result = await applyShardBatch(db, payments, { mayBeApplied: () => false });
    expect(result.statements).toBe(4);
    const recorded = await db
      .selectFrom("events")
      .select(["event_id", "event_type", "data"])
      .where(
        "operation_id",
        "in",
        payments.map((p) => p.id),
      )
      .orderBy("position")
      .execute();
    expect(recorded.map((r) => [r.event_id, r.event_type])).toEqual([
      [webhookEventId(payments[0]!.id, "payment.succeeded"), "payment.succeeded"],
      [webhookEventId(payments[1]!.id, "payment.failed"), "payment.failed"],
    ]);
    expect(recorded[1]!.data).toMatchObject({
      id: payments[1]!.id,
      userId: "rides-a",
      amount: 400,
      status: "failed",
      failureReason: "insufficient_funds",
    });
  });

  it("writes the subscribed events of the batch in its transaction, once, with derived ids", async () => {
    const deposit = operationMessage({ kind: "deposit", userId: "sub-a", amount: 1000 });
    const paid = operationMessage({ kind: "payment", userId: "sub-a", amount: 300 });
    const refused = operationMessage({ kind: "payment", userId: "sub-b", amount: 300 });
    const events = new Set(["deposit.succeeded", "payment.succeeded", "payment.failed"]);
    const first = await applyShardBatch(db, [deposit, paid, refused], { webhookEvents: events });
    const unsubscribed = await applyShardBatch(db, [
      operationMessage({ kind: "deposit", userId: "sub-c", amount: 1 }),
    ]);
    // Deposits, payments, balances and their events in one statement, whoever subscribes.
    expect(first.statements).toBe(unsubscribed.statements);
    const rows = await outbox();
    expect(rows.map((r) => [r.event_id, r.event_type, r.operation_id])).toEqual(
      [
        [webhookEventId(deposit.id, "deposit.succeeded"), "deposit.succeeded", deposit.id],
        [webhookEventId(paid.id, "payment.succeeded"), "payment.succeeded", paid.id],
        [webhookEventId(refused.id, "payment.failed"), "payment.failed", refused.id],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    const refusedRow = rows.find((r) => r.operation_id === refused.id)!;
    expect(refusedRow.data).toMatchObject({
      id: refused.id,
      userId: "sub-b",
      amount: 300,
      status: "failed",
      failureReason: "insufficient_funds",
    });

    // Redelivered: recognised, not applied, no second event.
    const again = await applyShardBatch(db, [deposit, paid, refused], { webhookEvents: events });
    expect(again.redelivered).toBe(3);
    expect(await outbox()).toHaveLength(3);
    const feed = await db
      .selectFrom("events")
      .select("event_id")
      .where("operation_id", "in", [deposit.id, paid.id, refused.id])
      .execute();
    expect(feed).toHaveLength(3);
  });
});
