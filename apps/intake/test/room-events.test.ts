// A room's events for the shop, end to end: two intakes contend for the admission lease (the first gives it up
// half-way), two worker processes drain the rooms' streams at once, and the events feed and the webhook
// deliveries hold each transition exactly once: room.queueing_started and room.queueing_stopped as a room's mode
// changes, room.sold_out when a room selling products has nothing left, and ticket.admitted only while an
// endpoint subscribes to it (before that, admissions are recorded nowhere). Run on one Redis and on the cluster.
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { closedPort, documentedInject, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let first: FastifyInstance;
let second: FastifyInstance;
let workers: WorkerProcess[] = [];
let receiverUrl: string;
let roomsEndpoint: string;

beforeAll(async () => {
  env = await createTestEnvironment("room-events", {
    env: { ADMIN_API_KEY: ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE: "true" },
  });
  first = await buildApp(env.config, { logger: false });
  second = await buildApp(env.config, { logger: false });
  // Deliveries fail (nobody listens there) and are retried: each is still listed once, which is what counts.
  receiverUrl = `http://127.0.0.1:${await closedPort()}/hooks`;
  // room.closed too, for the last test. Made before the workers start, which read the endpoint list before they
  // consume: a running worker reads it once a second, so an endpoint made just before an event may miss it
  // (docs/api.md), and the first test's first event came that soon (a fresh-clone CI run missed one).
  roomsEndpoint = await createEndpoint([
    "room.queueing_started",
    "room.queueing_stopped",
    "room.sold_out",
    "room.closed",
  ]);
  workers = [await startWorkerProcess(env.config), await startWorkerProcess(env.config)];
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await first?.close();
  await second?.close();
  await env?.cleanup();
});

interface FeedEvent {
  id: string;
  type: string;
  data: Record<string, string>;
}

/** The whole feed of one type, page after page. */
async function feed(type: string): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after = "";
  for (;;) {
    const page = await get(second, `/v1/events?type=${type}${after ? `&after=${after}` : ""}`);
    expect(page.statusCode, page.body).toBe(200);
    const body = page.json() as { data: FeedEvent[]; nextCursor: string };
    events.push(...body.data);
    if (body.data.length < 100) return events;
    after = body.nextCursor;
  }
}

const ofRoom = (events: FeedEvent[], roomId: string) => events.filter((e) => e.data.roomId === roomId);

const defineRoom = async (app: FastifyInstance, roomId: string, body: Record<string, unknown>) => {
  const defined = await documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: { admitPerSecond: 50, sessionSeconds: 600, ...body },
  });
  expect(defined.statusCode, defined.body).toBeLessThan(300);
};

const join = async (roomId: string, userId: string) => {
  const joined = await post(first, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(joined.statusCode, joined.body).toBe(201);
  return joined.json().ticketId as string;
};

const admitted = (roomId: string, ticketId: string) =>
  waitUntil(
    async () => (await get(second, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json().status,
    (status) => status === "admitted",
    `${ticketId} admitted`,
  );

/** Every entry of the room's stream drained by the workers (recorded or dropped). */
const drained = (roomId: string) =>
  waitUntil(
    () => first.redis.xlen(first.admission.keys.room(roomId).events),
    (length) => length === 0,
    `${roomId}'s events drained`,
  );

const createEndpoint = async (events: string[]) => {
  const created = await post(second, "/v1/webhook-endpoints", { url: receiverUrl, events });
  expect(created.statusCode, created.body).toBe(201);
  return created.json().id as string;
};

const deliveries = async (endpointId: string) => {
  const listed = await get(second, `/v1/webhook-endpoints/${endpointId}/deliveries`);
  expect(listed.statusCode, listed.body).toBe(200);
  return listed.json().data as { eventId: string; eventType: string }[];
};

const ids = (events: { id: string }[]) => events.map((e) => e.id).sort();

describe("room events", () => {
  it("records each queueing transition and a sold-out room once, and no admission nobody asked for", async () => {
    const product = await createProduct(second, { stock: 0, price: 1000 });
    await defineRoom(first, "drop", { mode: "on" });
    await defineRoom(first, "sale", { mode: "on", products: [product.id] });
    const early = [await join("drop", "early-0"), await join("drop", "early-1")];
    for (const ticketId of early) await admitted("drop", ticketId);

    // The leading intake gives the lease up; the other leads from here and repeats nothing already told.
    await waitUntil(
      async () => first.admission.leader.leading || second.admission.leader.leading,
      (leading) => leading,
      "a leader",
    );
    await (first.admission.leader.leading ? first : second).admission.leader.stop();
    await defineRoom(second, "drop", { mode: "off" });
    await waitUntil(
      async () => ofRoom(await feed("room.queueing_stopped"), "drop").length,
      (n) => n > 0,
      "drop stopped queueing",
    );
    await waitUntil(
      async () => ofRoom(await feed("room.sold_out"), "sale").length,
      (n) => n > 0,
      "sale sold out",
    );
    await Promise.all([drained("drop"), drained("sale")]);

    const started = await feed("room.queueing_started");
    expect(ofRoom(started, "drop")).toHaveLength(1);
    expect(ofRoom(started, "sale")).toHaveLength(1);
    expect(ofRoom(await feed("room.queueing_stopped"), "drop")).toHaveLength(1);
    expect(ofRoom(await feed("room.queueing_stopped"), "sale")).toEqual([]);
    const soldOut = await feed("room.sold_out");
    expect(soldOut.map((e) => e.data.roomId)).toEqual(["sale"]);
    expect(Number.isNaN(Date.parse(soldOut[0]!.data.at!))).toBe(false);
    // Nobody subscribes to ticket.admitted: the admissions were dropped from the stream, recorded nowhere.
    expect(await feed("ticket.admitted")).toEqual([]);

    const expected = [...started, ...(await feed("room.queueing_stopped")), ...soldOut];
    const listed = await waitUntil(
      () => deliveries(roomsEndpoint),
      (list) => list.length >= expected.length,
      "a delivery per room event",
    );
    expect(listed.map((d) => d.eventId).sort()).toEqual(ids(expected));
  });

  it("records ticket.admitted once per admitted ticket while an endpoint subscribes to it, for it alone", async () => {
    // One worker from here: each reads the endpoint list on its own, so once this one records an admission,
    // it records every later one.
    await workers.pop()?.stop();
    const admissionsEndpoint = await createEndpoint(["ticket.admitted"]);
    await defineRoom(second, "drop", { mode: "on" });
    // Workers read the endpoint list once a second: admissions go on until one is recorded.
    const tickets = new Map<string, string>();
    await waitUntil(
      async () => {
        const userId = `buyer-${tickets.size}`;
        const ticketId = await join("drop", userId);
        tickets.set(ticketId, userId);
        await admitted("drop", ticketId);
        return (await feed("ticket.admitted")).length;
      },
      (n) => n > 0,
      "a ticket.admitted recorded",
      100,
    );
    // From now on every admission is recorded.
    const last = await join("drop", "last-buyer");
    tickets.set(last, "last-buyer");
    await admitted("drop", last);
    // The feed shows an event once every transaction older than it on the Postgres server has ended.
    const recorded = await waitUntil(
      () => feed("ticket.admitted"),
      (events) => events.some((e) => e.data.ticketId === last),
      "the last admission in the feed",
    );
    expect(new Set(recorded.map((e) => e.id)).size).toBe(recorded.length);
    for (const event of recorded) {
      expect(event.data.roomId).toBe("drop");
      expect(tickets.get(event.data.ticketId!)).toBe(event.data.userId);
      expect(Date.parse(event.data.expiresAt!)).toBeGreaterThan(Date.parse(event.data.admittedAt!));
    }
    const listed = await waitUntil(
      () => deliveries(admissionsEndpoint),
      (list) => list.length >= recorded.length,
      "a delivery per admission",
    );
    expect(listed.map((d) => d.eventId).sort()).toEqual(ids(recorded));
    // The room endpoint, which does not name ticket.admitted, got none of them.
    expect((await deliveries(roomsEndpoint)).filter((d) => d.eventType === "ticket.admitted")).toEqual([]);
  });

  it("records room.closed once when the room's endsAt has passed", async () => {
    // An endsAt already past closes the room on the leader's next tick; the ticks after it tell nothing again.
    await defineRoom(second, "last-call", { mode: "on", endsAt: new Date(Date.now() - 1_000).toISOString() });
    const closed = await waitUntil(
      async () => ofRoom(await feed("room.closed"), "last-call"),
      (events) => events.length > 0,
      "last-call closed",
    );
    await drained("last-call");
    expect(ofRoom(await feed("room.closed"), "last-call")).toHaveLength(1);
    expect(Number.isNaN(Date.parse(closed[0]!.data.at!))).toBe(false);
    const listed = await waitUntil(
      async () => (await deliveries(roomsEndpoint)).filter((d) => d.eventType === "room.closed"),
      (list) => list.length >= 1,
      "the room.closed delivery",
    );
    expect(listed.map((d) => d.eventId)).toEqual([closed[0]!.id]);
  });
});
