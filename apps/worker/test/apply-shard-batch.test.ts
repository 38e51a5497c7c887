// applyShardBatch against a real shard: a redelivered message is recognised by its id and changes nothing; a
// message whose order is not on the shard yet waits for it.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { newOperationId, newProductId, type OrderCancelMessage, type OrderMessage } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyShardBatch } from "../src/apply-shard-batch.ts";
import { isRetryable } from "../src/classify-error.ts";
import { OrderNotYetRecordedError } from "../src/orders/apply-order-ends.ts";
import { ORDER_IN_FLIGHT_MS } from "../src/orders/pay-orders.ts";
import { operationMessage } from "./support/accept-operations.ts";
import { waitFor } from "./support/wait-for.ts";

let env: TestEnvironment;
let db: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("apply-shard-batch", { shards: 1 });
  db = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 4 });
});

afterAll(async () => {
  await db?.destroy();
  await env?.cleanup();
});

const balances = async () =>
  Object.fromEntries(
    (await db.selectFrom("wallets").select(["user_id", "balance"]).execute()).map((w) => [
      w.user_id,
      w.balance,
    ]),
  );
const rowCount = async () => {
  const { rows } = await sql<{ n: number }>`
    select (select count(*) from payments) + (select count(*) from deposits) as n`.execute(db);
  return Number(rows[0]!.n);
};

describe("applyShardBatch", () => {
  it("applies a redelivered batch once: the second apply inserts nothing and changes no balance", async () => {
    const messages = [
      operationMessage({ kind: "deposit", userId: "redeliver-a", amount: 1000 }),
      operationMessage({ kind: "payment", userId: "redeliver-a", amount: 400 }),
      operationMessage({ kind: "payment", userId: "redeliver-a", amount: 700 }), // more than is left
      operationMessage({ kind: "deposit", userId: "redeliver-b", amount: 50 }),
      operationMessage({ kind: "payment", userId: "redeliver-b", amount: 50 }),
    ];
    const first = await applyShardBatch(db, messages);
    expect(first.applied).toHaveLength(5);
    expect(first.redelivered).toBe(0);
    const afterFirst = await balances();
    expect(afterFirst).toMatchObject({ "redeliver-a": 600, "redeliver-b": 0 });
    const rowsAfterFirst = await rowCount();

    const second = await applyShardBatch(db, messages);
    expect(second.applied).toEqual([]);
    expect(second.redelivered).toBe(5);
    expect(await balances()).toEqual(afterFirst);
    expect(await rowCount()).toBe(rowsAfterFirst);
    // The redelivery reports the statuses decided the first time (the worker republishes them).
    const byId = (statuses: typeof first.statuses) =>
      Object.fromEntries(statuses.map((s) => [s.id, [s.status, s.failureReason]]));
    expect(byId(second.statuses)).toEqual(byId(first.statuses));
    expect(byId(second.statuses)[messages[2]!.id]).toEqual(["failed", "insufficient_funds"]);
  });

  it("applies only the new messages of a batch that mixes redeliveries with new ones", async () => {
    const old = operationMessage({ kind: "deposit", userId: "mixed-a", amount: 300 });
    await applyShardBatch(db, [old]);
    const fresh = operationMessage({ kind: "payment", userId: "mixed-a", amount: 100 });
    const result = await applyShardBatch(db, [old, fresh, old]);
    expect(result.applied.map((a) => a.message.id)).toEqual([fresh.id]);
    expect(result.redelivered).toBe(1);
    expect((await balances())["mixed-a"]).toBe(200);
  });

  it("applies messages the caller vouches are new without looking them up, with the same outcome", async () => {
    const messages = [
      operationMessage({ kind: "deposit", userId: "vouched-a", amount: 500 }),
      operationMessage({ kind: "payment", userId: "vouched-a", amount: 200 }),
      operationMessage({ kind: "payment", userId: "vouched-a", amount: 400 }), // more than is left
      operationMessage({ kind: "payment", userId: "vouched-no-wallet", amount: 1 }),
    ];
    const result = await applyShardBatch(db, messages, { mayBeApplied: () => false });
    expect(result.statuses.map((s) => [s.status, s.failureReason])).toEqual([
      ["succeeded", undefined],
      ["succeeded", undefined],
      ["failed", "insufficient_funds"],
      ["failed", "insufficient_funds"],
    ]);
    expect(await balances()).toMatchObject({ "vouched-a": 300 });
    // Checked against a conservative apply of the same shape: one statement fewer (no look-up of ids).
    const conservative = await applyShardBatch(db, [
      operationMessage({ kind: "deposit", userId: "vouched-b", amount: 500 }),
      operationMessage({ kind: "payment", userId: "vouched-b", amount: 200 }),
      operationMessage({ kind: "payment", userId: "vouched-b", amount: 400 }),
      operationMessage({ kind: "payment", userId: "vouched-no-wallet", amount: 1 }),
    ]);
    expect(conservative.statements).toBe(result.statements + 1);
  });

  it("refuses, as a retryable concurrent apply, a message wrongly vouched new that is already applied", async () => {
    const deposit = operationMessage({ kind: "deposit", userId: "wrongly-vouched", amount: 100 });
    const payment = operationMessage({ kind: "payment", userId: "wrongly-vouched", amount: 30 });
    await applyShardBatch(db, [deposit, payment]);
    const before = await rowCount();
    const error = await applyShardBatch(db, [payment], { mayBeApplied: () => false }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(isRetryable(error)).toBe(true);
    expect(await rowCount()).toBe(before);
    expect((await balances())["wrongly-vouched"]).toBe(70);
    // The retry that looks it up recognises the redelivery.
    const retry = await applyShardBatch(db, [payment]);
    expect(retry.redelivered).toBe(1);
    expect((await balances())["wrongly-vouched"]).toBe(70);
  });

  it("applies the same messages once when two workers apply them at the same time", async () => {
    const messages = Array.from({ length: 40 }, (_, i) =>
      operationMessage({
        kind: i % 4 === 0 ? "deposit" : "payment",
        userId: `race-${i % 5}`,
        amount: 100 + i,
      }),
    );
    const before = await rowCount();
    const outcomes = await Promise.all([
      applyShardBatch(db, messages),
      applyShardBatch(db, [...messages].reverse()),
    ]);
    expect(outcomes[0].applied.length + outcomes[1].applied.length).toBe(40);
    expect(await rowCount()).toBe(before + 40);
  });

  it("survives a shard connection lost mid-transaction and classifies the failure as retryable", async () => {
    // A lost connection must reach the caller as a rejected query, never as an uncaught 'error' event (which
    // would end a worker process in the middle of its batches).
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const user = "lost-connection";
    await applyShardBatch(db, [operationMessage({ kind: "deposit", userId: user, amount: 10 })]);
    // Hold the wallet's lock so the batch waits inside its transaction, then cut its connection.
    const holder = new pg.Client({ connectionString: env.config.shardUrls[0] });
    await holder.connect();
    const victim = createKysely<ShardDatabase>(env.config.shardUrls[0]!, {
      max: 1,
      applicationName: "victim",
    });
    // pg_stat_activity is read outside the holder's transaction, which would see one cached snapshot.
    const victimWaits = async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name = 'victim' and wait_event_type = 'Lock'`.execute(
        db,
      );
      return rows[0]!.n === 1;
    };
    try {
      await holder.query("begin");
      await holder.query("select 1 from wallets where user_id = $1 for update", [user]);
      const applying = applyShardBatch(victim, [
        operationMessage({ kind: "payment", userId: user, amount: 5 }),
      ]).then(
        () => null,
        (error: unknown) => error,
      );
      await waitFor(victimWaits, "the batch to wait for the wallet lock");
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = 'victim'`.execute(db);
      const error = await applying;
      expect(error).toBeInstanceOf(Error);
      expect(isRetryable(error)).toBe(true);
    } finally {
      process.off("uncaughtException", onUncaught);
      await holder.query("rollback").catch(() => {});
      await holder.end();
      await victim.destroy();
    }
    expect(uncaught).toEqual([]);
    expect((await balances())[user]).toBe(10);
  });
});

describe("a payment naming an order its shard does not have", () => {
  const payFor = (userId: string, orderId: string) => ({
    ...operationMessage({ kind: "payment", userId, amount: 10 }),
    orderId,
  });

  it("is left out of its batch, which goes on, while the payer's order may still be applied by another worker", async () => {
    const user = "pays-on-the-202";
    await applyShardBatch(db, [operationMessage({ kind: "deposit", userId: user, amount: 100 })]);
    const waiting = payFor(user, newOperationId("order", bucketForUser(user)));
    const other = operationMessage({ kind: "deposit", userId: user, amount: 5 });
    const result = await applyShardBatch(db, [waiting, other]);
    expect(result.awaitingOrder).toEqual([waiting]);
    expect(result.statuses.map((s) => s.id)).toEqual([other.id]); // no final status for the waiting payment
    expect((await balances())[user]).toBe(105);
  });

  it("fails order_not_found at once for an order of another bucket or older than the wait", async () => {
    const user = "pays-a-wrong-order";
    await applyShardBatch(db, [operationMessage({ kind: "deposit", userId: user, amount: 100 })]);
    let otherBucket = "someone-else-0";
    for (let i = 1; bucketForUser(otherBucket) === bucketForUser(user); i++)
      otherBucket = `someone-else-${i}`;
    const orders = [
      newOperationId("order", bucketForUser(otherBucket)),
      newOperationId("order", bucketForUser(user), Date.now() - ORDER_IN_FLIGHT_MS - 1000),
      newOperationId("order", bucketForUser(user), Date.now() + 120_000), // made up: no real order is dated ahead
    ];
    const result = await applyShardBatch(
      db,
      orders.map((orderId) => payFor(user, orderId)),
    );
    expect(result.statuses.map((s) => [s.status, s.failureReason])).toEqual([
      ["failed", "order_not_found"],
      ["failed", "order_not_found"],
      ["failed", "order_not_found"],
    ]);
    // A worker holding as many waiting payments as it will lets no more wait.
    const full = await applyShardBatch(db, [payFor(user, newOperationId("order", bucketForUser(user)))], {
      mayAwaitOrder: false,
    });
    expect(full.statuses.map((s) => s.failureReason)).toEqual(["order_not_found"]);
    expect((await balances())[user]).toBe(100);
  });
});

describe("an end request for an order its shard does not have yet", () => {
  const orderFor = (userId: string, createdAt = Date.now()): OrderMessage => ({
    v: 1,
    kind: "order",
    id: newOperationId("order", bucketForUser(userId), createdAt),
    userId,
    items: [{ productId: newProductId(), quantity: 1, unitPrice: 700 }],
    discount: 0,
    amount: 700,
    currency: "KRW",
    expiresAt: createdAt + 600_000,
    createdAt,
  });
  const cancelOf = (order: OrderMessage): OrderCancelMessage => ({
    v: 1,
    kind: "order_cancel",
    id: newOperationId("order_cancel", bucketForUser(order.userId)),
    userId: order.userId,
    orderId: order.id,
    reason: "cancelled",
    createdAt: Date.now(),
  });
  const orderStatus = async (orderId: string) =>
    (await db.selectFrom("orders").select("status").where("id", "=", orderId).executeTakeFirst())?.status;

  it("is left out of its batch, which goes on, and ends the order once the order is on the shard", async () => {
    // The order's own batch is still in another worker's hands: the cancel, queued after it, is read first.
    const user = "cancels-on-the-202";
    const order = orderFor(user);
    const cancel = cancelOf(order);
    const other = operationMessage({ kind: "deposit", userId: user, amount: 5 });
    const early = await applyShardBatch(db, [cancel, other]);
    expect(early.awaitingOrder).toEqual([cancel]);
    expect(early.statuses.map((s) => s.id)).toEqual([other.id]); // no final status for the waiting cancel
    expect(early.orders.ended).toEqual([]);
    expect(await orderStatus(order.id)).toBeUndefined();

    await applyShardBatch(db, [order]);
    expect(await orderStatus(order.id)).toBe("awaiting_payment");
    const retried = await applyShardBatch(db, [cancel]);
    expect(retried.awaitingOrder).toEqual([]);
    expect(retried.statuses.map((s) => [s.id, s.status])).toEqual([[cancel.id, "succeeded"]]);
    expect(retried.orders.endedNow).toEqual([{ orderId: order.id, status: "cancelled" }]);
    expect(await orderStatus(order.id)).toBe("cancelled");
  });

  it("fails on its own when the order can no longer arrive or the worker lets no more wait", async () => {
    const stale = cancelOf(orderFor("cancels-a-stale-order", Date.now() - ORDER_IN_FLIGHT_MS - 1000));
    await expect(applyShardBatch(db, [stale])).rejects.toBeInstanceOf(OrderNotYetRecordedError);
    const fresh = cancelOf(orderFor("cancels-while-the-worker-is-full"));
    await expect(applyShardBatch(db, [fresh], { mayAwaitOrder: false })).rejects.toBeInstanceOf(
      OrderNotYetRecordedError,
    );
  });
});
