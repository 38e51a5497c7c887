// GET /v1/events end to end: operations on every shard through the real intake, applied by a real worker
// process, with no webhook endpoint at all (events are recorded whether or not anyone subscribes). The feed
// lists each event once, oldest first, paged by cursor with no repeats and no skips; `type` filters; bad
// input is a problem naming the field; only the shop's server key reads it. Every answer is held against the
// served OpenAPI document.
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventType, webhookEventId } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { Value } from "typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "./support/coupon-client.ts";
import {
  asShop,
  deposit,
  documentedInject,
  type IntakeApp,
  pay,
  startIntake,
} from "./support/intake-client.ts";
import { cancelOrder, createProduct, operationView, placeOrder } from "./support/order-client.ts";
import { shardOfUser, usersOnEveryShard } from "./support/shard-users.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 3;

let env: TestEnvironment;
let app: IntakeApp;
let worker: WorkerProcess;

interface FeedItem {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

beforeAll(async () => {
  env = await createTestEnvironment("events-feed", {
    shards: SHARDS,
    env: { ADMIN_API_KEY: ADMIN_KEY, ORDER_TTL_SECONDS: "600" },
  });
  app = await startIntake(env.config);
  worker = await startWorkerProcess(env.config);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

async function feed(query: string, headers = asShop(app)) {
  const url = `/v1/events${query}`;
  return documentedInject(app, { method: "GET", url, headers });
}

async function page(query: string): Promise<{ data: FeedItem[]; nextCursor: string }> {
  const response = await feed(query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Every event from `after` on, `limit` at a time: the pages, as read. */
async function readAll(limit: number, type?: string, after?: string) {
  const pages: FeedItem[][] = [];
  let cursor = after;
  for (;;) {
    const params = new URLSearchParams({ limit: String(limit) });
    if (type) params.set("type", type);
    if (cursor) params.set("after", cursor);
    const { data, nextCursor } = await page(`?${params}`);
    pages.push(data);
    cursor = nextCursor;
    if (data.length < limit) return { pages, cursor };
  }
}

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

describe("GET /v1/events", () => {
  const expected = new Map<string, { type: string; path: string }>(); // event id -> its type, its GET
  const views = new Map<string, Record<string, unknown>>(); // event id -> its operation's final view
  let cancelledOrder = "";

  beforeAll(async () => {
    const users = usersOnEveryShard("feed", 2, SHARDS);
    const shardOf = shardOfUser(SHARDS);
    expect(new Set(users.map(shardOf)).size).toBe(SHARDS);
    const expect_ = (operationId: string, type: string, path: string) =>
      expected.set(webhookEventId(operationId, type), { type, path });
    for (const userId of users) {
      const { id } = await deposit(app, userId, 5_000);
      expect_(id, "deposit.succeeded", `/v1/deposits/${id}`);
    }
    for (const userId of users) {
      const paid = await pay(app, userId, 1_000);
      expect_(paid.id, "payment.succeeded", `/v1/payments/${paid.id}`);
    }
    const refused = await pay(app, "feed-broke", 500);
    expect_(refused.id, "payment.failed", `/v1/payments/${refused.id}`);
    const productId = await createProduct(app, 10, 700);
    const placed = await placeOrder(app, { userId: users[0]!, items: [{ productId, quantity: 2 }] });
    expect(placed.statusCode, placed.body).toBe(202);
    cancelledOrder = placed.json().id;
    expect_(cancelledOrder, "order.awaiting_payment", `/v1/orders/${cancelledOrder}`);
    await finalView(`/v1/orders/${cancelledOrder}`, ["awaiting_payment"]);
    expect((await cancelOrder(app, cancelledOrder)).statusCode).toBe(202);
    expect_(cancelledOrder, "order.cancelled", `/v1/orders/${cancelledOrder}`);
    for (const [eventId, { type, path }] of expected) {
      const statuses = type === "order.awaiting_payment" ? ["awaiting_payment", "cancelled"] : [];
      const final =
        type === "payment.failed" ? ["failed"] : type === "order.cancelled" ? ["cancelled"] : ["succeeded"];
      views.set(eventId, await finalView(path, statuses.length > 0 ? statuses : final));
    }
    // Applied is not yet listed: the feed hands out an event once no older transaction can still commit.
    await waitFor(
      async () => (await readAll(100)).pages.flat().length >= expected.size,
      "every event listed",
    );
  });

  it("lists every event of every shard once, oldest first, paged by cursor without repeats or skips", async () => {
    const { pages, cursor } = await readAll(4);
    const items = pages.flat();
    expect(pages.slice(0, -1).every((p) => p.length === 4)).toBe(true);
    expect(items.map((e) => e.id).sort()).toEqual([...expected.keys()].sort());
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length);
    for (const item of items) expect(item.type).toBe(expected.get(item.id)!.type);
    const times = items.map((e) => Date.parse(e.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The same as one page of 100.
    expect((await page("?limit=100")).data.map((e) => e.id)).toEqual(items.map((e) => e.id));
    // The last cursor: nothing new yet; a new operation, and only it, comes next.
    expect((await page(`?after=${cursor}`)).data).toEqual([]);
    const late = await deposit(app, "feed-late", 10);
    const lateEvent = webhookEventId(late.id, "deposit.succeeded");
    await waitFor(async () => (await page(`?after=${cursor}`)).data.length > 0, "the late deposit listed");
    expect((await page(`?after=${cursor}`)).data.map((e) => e.id)).toEqual([lateEvent]);
    expected.set(lateEvent, { type: "deposit.succeeded", path: `/v1/deposits/${late.id}` });
  });

  it("carries each event as a webhook delivers it: its data its operation's GET view", async () => {
    const items = (await page("?limit=100")).data;
    for (const [eventId, view] of views) {
      const item = items.find((e) => e.id === eventId)!;
      const type = expected.get(eventId)!.type;
      // The body the OpenAPI document's `webhooks` gives for this type.
      const schema = WEBHOOK_EVENT_SCHEMAS[type as WebhookEventType];
      expect(
        [...Value.Errors(schema, item)].map((e) => `${e.instancePath} ${e.message}`),
        type,
      ).toEqual([]);
      if (type === "order.awaiting_payment") {
        // As accepted: its status then, the rest the same.
        expect(item.data).toMatchObject({ id: view.id, status: "awaiting_payment", amount: view.amount });
      } else if (type === "order.cancelled") {
        // Made by Postgres in the worker's transaction (final-order-json.ts): exactly the GET view.
        expect(item.data, type).toEqual(view);
      } else {
        // completedAt is the worker's clock at the commit, which the status in Redis took a moment later.
        const { completedAt: _c, ...rest } = view;
        expect(item.data, type).toMatchObject(rest);
      }
    }
    const cancelled = items.find((e) => e.id === webhookEventId(cancelledOrder, "order.cancelled"))!;
    expect(cancelled.data).toMatchObject({ status: "cancelled", items: [{ quantity: 2, unitPrice: 700 }] });
  });

  it("filters by type; a cursor answers only for the type it was made for", async () => {
    const { pages, cursor } = await readAll(2, "payment.succeeded");
    const ids = pages.flat().map((e) => e.id);
    const wanted = [...expected].filter(([, e]) => e.type === "payment.succeeded").map(([id]) => id);
    expect(ids.sort()).toEqual(wanted.sort());
    expect((await page(`?type=payment.succeeded&after=${cursor}`)).data).toEqual([]);
    const other = await feed(`?after=${cursor}`);
    expectProblem(other, 400, "after");
    expect(other.json().detail).toMatch(/type=payment\.succeeded/);
  });

  it("refuses bad input with a problem naming the field", async () => {
    const bad: [string, string][] = [
      ["?after=not-a-cursor", "after"],
      [`?after=${Buffer.from('{"v":1,"t":null,"s":["1.x"]}').toString("base64url")}`, "after"],
      [
        `?after=${Buffer.from(JSON.stringify({ v: 1, t: null, s: ["0.0", "0.0", "0.0", "0.0"] })).toString("base64url")}`,
        "after",
      ],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=ten", "limit"],
      ["?type=order.shipped", "type"],
      ["?colour=red", "colour"],
    ];
    for (const [query, field] of bad) expectProblem(await feed(query), 400, field);
    expect((await page("?limit=1")).data).toHaveLength(1);
    expect((await page("?limit=100")).data.length).toBeGreaterThan(1);
  });

  it("answers the shop's server key only: a customer token is refused", async () => {
    const token = (await app.auth.customerTokens.mint("feed-0", 900)).token;
    const refused = await feed("", { authorization: `Bearer ${token}` });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: "forbidden_caller", field: "Authorization" });
    const none = await documentedInject(app, { method: "GET", url: "/v1/events" });
    expect(none.statusCode).toBe(401);
  });
});

function expectProblem(response: Awaited<ReturnType<typeof feed>>, status: number, field: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = response.json();
  expect(body.field, response.body).toBe(field);
  expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
}
