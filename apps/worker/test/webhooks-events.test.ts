// Webhooks end to end, with real worker processes and a real HTTP receiver that verifies every signature:
// every event of a normal run arrives exactly once, carrying the operation's final view; the deliveries
// route shows them; a redelivery sends one again; and workers SIGKILLed after their operations committed but
// before their events were relayed lose none (a new worker relays them).
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventType } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createCoupon, requestIssue } from "./support/coupon-client.ts";
import {
  asShop,
  deposit,
  documentedInject,
  type IntakeApp,
  pay,
  startIntake,
} from "./support/intake-client.ts";
import { cancelOrder, createProduct, operationView, payOrder, placeOrder } from "./support/order-client.ts";
import { waitFor } from "./support/wait-for.ts";
import {
  createEndpoint,
  type ExpectedEvent,
  endpointDeliveries,
  expectedEvent,
} from "./support/webhook-endpoints.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

let env: TestEnvironment;
let app: IntakeApp;
/** The same intake with orders that last 10 minutes: for the orders that must be paid or cancelled first. */
let lasting: IntakeApp;
let receiver: WebhookReceiver;
let endpointId: string;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("webhooks-events", {
    env: {
      ADMIN_API_KEY: ADMIN_KEY,
      ORDER_TTL_SECONDS: "3",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_BASE_MS: "1000",
    },
  });
  app = await startIntake(env.config);
  lasting = await startIntake({ ...env.config, orderTtlSeconds: 600 });
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(app, receiver.url);
  endpointId = endpoint.id;
  receiver.setSecret(endpoint.secret);
  workers = [await startWorkerProcess(env.config), await startWorkerProcess(env.config)];
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await lasting?.close();
  await receiver?.close();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const finalView = async (path: string, statuses: string[]) => {
  let view: Record<string, unknown> | null = null;
  await waitFor(
    async () => {
      view = await operationView(app, path);
      return view !== null && statuses.includes(view.status as string);
    },
    `${path} to be ${statuses.join(" or ")}`,
  );
  return view as unknown as Record<string, unknown>;
};

const allArrived = (expected: ExpectedEvent[]) =>
  waitFor(
    () => expected.every((event) => receiver.acceptedCount(event.id) >= 1),
    `${expected.length} events at the receiver`,
    60_000,
    () =>
      `missing: ${expected
        .filter((event) => receiver.acceptedCount(event.id) === 0)
        .map((event) => `${event.type} ${event.operationId}`)
        .join(", ")}`,
  );

describe("a normal run", () => {
  const expected: ExpectedEvent[] = [];
  const views = new Map<string, Record<string, unknown>>(); // operation id -> its final GET view

  beforeAll(async () => {
    const productId = await createProduct(app, 50, 1_000);
    const couponId = await createCoupon(app, 5);
    for (const userId of ["wh-a", "wh-b", "wh-c"]) {
      const { id } = await deposit(app, userId, 10_000);
      expected.push(expectedEvent(id, "deposit.succeeded"));
      views.set(id, await finalView(`/v1/deposits/${id}`, ["succeeded"]));
    }
    const paid = await pay(app, "wh-a", 1_500);
    expected.push(expectedEvent(paid.id, "payment.succeeded"));
    const refused = await pay(app, "wh-broke", 500);
    expected.push(expectedEvent(refused.id, "payment.failed"));
    const issue = (await requestIssue(app, couponId, "wh-b")).json().id as string;
    expected.push(expectedEvent(issue, "coupon.issued"));

    const order = async (via: IntakeApp, userId: string) => {
      const response = await placeOrder(via, { userId, items: [{ productId, quantity: 2 }] });
      expect(response.statusCode, response.body).toBe(202);
      const { id, amount } = response.json();
      expected.push(expectedEvent(id, "order.awaiting_payment"));
      return { id: id as string, amount: amount as number };
    };
    // The order to pay and the one to cancel last 10 minutes (their payment and cancellation must come first
    // however slow the machine); only the one to expire has the 3 s TTL. A worker's batch of orders gets one
    // expiry job, due at its latest expiresAt, so the short one is placed only once the long ones are applied
    // (awaiting payment): it cannot share their batch and so their 10 minutes.
    const toPay = await order(lasting, "wh-a");
    const toCancel = await order(lasting, "wh-b");
    for (const { id } of [toPay, toCancel]) await finalView(`/v1/orders/${id}`, ["awaiting_payment"]);
    const toExpire = await order(app, "wh-c");
    const orderPayment = await payOrder(app, "wh-a", toPay.id, toPay.amount);
    expected.push(expectedEvent(orderPayment, "payment.succeeded"), expectedEvent(toPay.id, "order.paid"));
    expect((await cancelOrder(app, toCancel.id)).statusCode).toBe(202);
    expected.push(expectedEvent(toCancel.id, "order.cancelled"), expectedEvent(toExpire.id, "order.expired"));

    views.set(paid.id, await finalView(`/v1/payments/${paid.id}`, ["succeeded"]));
    views.set(refused.id, await finalView(`/v1/payments/${refused.id}`, ["failed"]));
    views.set(orderPayment, await finalView(`/v1/payments/${orderPayment}`, ["succeeded"]));
    views.set(issue, await finalView(`/v1/coupon-issues/${issue}`, ["succeeded"]));
    views.set(toPay.id, await finalView(`/v1/orders/${toPay.id}`, ["paid"]));
    views.set(toCancel.id, await finalView(`/v1/orders/${toCancel.id}`, ["cancelled"]));
    views.set(toExpire.id, await finalView(`/v1/orders/${toExpire.id}`, ["expired"]));
    await allArrived(expected);
  });

  it("delivers every event exactly once, signed (the receiver verified each), with its id in webhook-id", () => {
    expect(receiver.forged).toEqual([]);
    for (const event of expected) expect(receiver.acceptedCount(event.id), event.type).toBe(1);
    expect(receiver.received.map((d) => d.event.id).sort()).toEqual(expected.map((e) => e.id).sort());
    // A new endpoint: Standard Webhooks, the event id as the message id.
    for (const delivery of receiver.received) expect(delivery.headers["webhook-id"]).toBe(delivery.event.id);
    expect(new Set(expected.map((e) => e.type))).toEqual(
      new Set([
        "deposit.succeeded",
        "payment.succeeded",
        "payment.failed",
        "coupon.issued",
        "order.awaiting_payment",
        "order.paid",
        "order.cancelled",
        "order.expired",
      ]),
    );
  });

  it("carries the operation's view as its GET route shows it (final orders as they ended)", () => {
    const byId = new Map(receiver.accepted().map((event) => [event.id, event]));
    for (const want of expected) {
      const event = byId.get(want.id)!;
      expect(event).toMatchObject({ type: want.type, createdAt: expect.any(String) });
      // The body the OpenAPI document names for this event type (its `webhooks`).
      const schema = WEBHOOK_EVENT_SCHEMAS[want.type as WebhookEventType];
      expect(
        [...Value.Errors(schema, event)].map((e) => `${e.instancePath} ${e.message}`),
        want.type,
      ).toEqual([]);
      const view = views.get(want.operationId);
      if (want.type === "order.awaiting_payment") {
        expect(event.data).toMatchObject({ id: want.operationId, status: "awaiting_payment" });
        const { status: _s, updatedAt: _u, paymentId: _p, ...rest } = view!;
        expect(event.data).toMatchObject(rest);
        continue;
      }
      // completedAt is the worker's clock at the commit, which the status in Redis took a moment later.
      const { completedAt: _c, ...rest } = view!;
      expect(event.data, want.type).toMatchObject(rest);
    }
  });

  it("lists the deliveries with their attempts, and sends one again on request", async () => {
    // The receiver has every event before the relay writes each attempt down (it records the answer after the
    // HTTP call returns), so wait for the records themselves; what they say is asserted after.
    let ours: Awaited<ReturnType<typeof endpointDeliveries>> = [];
    await waitFor(async () => {
      const deliveries = await endpointDeliveries(app, endpointId);
      ours = deliveries.filter((d) => expected.some((e) => e.id === d.eventId));
      return ours.length === expected.length && ours.every((d) => d.deliveredAt !== null);
    }, "every delivery's attempt recorded");
    expect(ours).toHaveLength(expected.length);
    for (const delivery of ours) {
      expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200, nextAttemptAt: null });
      expect(delivery.deliveredAt).not.toBeNull();
    }
    const again = ours[0]!;
    const asked = await documentedInject(app, {
      method: "POST",
      url: `/v1/webhook-deliveries/${again.id}/redeliver`,
      headers: asShop(app),
    });
    expect(asked.statusCode, asked.body).toBe(202);
    await waitFor(() => receiver.acceptedCount(again.eventId) === 2, "the redelivery");
  });
});

describe("workers SIGKILLed after the commit, before the relay", () => {
  const expected: ExpectedEvent[] = [];
  let heldInOutbox = 0;

  beforeAll(async () => {
    // The relays cannot write deliveries while the test holds this lock: the events wait in the outboxes.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = global.transaction().execute(async (trx) => {
      await sql`lock table webhook_deliveries in exclusive mode`.execute(trx);
      locked();
      await released;
    });
    await lockTaken;
    try {
      for (let i = 0; i < 8; i++) {
        const { id } = await deposit(app, `wh-kill-${i}`, 700 + i);
        expected.push(expectedEvent(id, "deposit.succeeded"));
      }
      for (const event of expected) await finalView(`/v1/deposits/${event.operationId}`, ["succeeded"]);
      const outboxRows = async () =>
        (
          await Promise.all(
            shards.map((db) =>
              db
                .selectFrom("webhook_outbox")
                .select("event_id")
                .where(
                  "event_id",
                  "in",
                  expected.map((e) => e.id),
                )
                .execute(),
            ),
          )
        ).flat().length;
      heldInOutbox = await outboxRows();
      await Promise.all(workers.map((w) => w.kill()));
    } finally {
      release();
      await holding;
    }
    workers = [await startWorkerProcess(env.config)];
    await allArrived(expected);
  });

  it("had the events committed in the outbox when the workers died (the case being tested)", () => {
    expect(heldInOutbox).toBe(expected.length);
  });

  it("delivers each of them exactly once through the new worker", async () => {
    for (const event of expected) expect(receiver.acceptedCount(event.id)).toBe(1);
    // The relay deletes its rows when its shard transaction commits, just after adding the jobs.
    const outboxRows = async () =>
      (
        await Promise.all(shards.map((db) => db.selectFrom("webhook_outbox").select("event_id").execute()))
      ).flat();
    await waitFor(async () => (await outboxRows()).length === 0, "the outboxes to be emptied");
    expect(receiver.forged).toEqual([]);
  });
});
