// The outbox rows a shard batch writes, against a real shard: none (and no statement) when no endpoint wants
// the batch's event types; one statement for the batch's events when one does; a redelivered batch adds none;
// event ids are derived, not drawn.
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
  it("writes nothing, and spends no statement, when nobody subscribes", async () => {
    const messages = [operationMessage({ kind: "deposit", userId: "nobody-a", amount: 100 })];
    const without = await applyShardBatch(db, messages);
    const other = await applyShardBatch(
      db,
      [operationMessage({ kind: "deposit", userId: "nobody-b", amount: 100 })],
      {
        webhookEvents: new Set(["order.paid"]),
      },
    );
    expect(other.statements).toBe(without.statements);
    expect(await outbox()).toEqual([]);
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
    expect(first.statements).toBe(unsubscribed.statements + 1 + 1); // + the outbox insert, + the payments' insert
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
  });
});
