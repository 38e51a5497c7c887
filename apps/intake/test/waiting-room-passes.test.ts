// Join passes and lanes through the HTTP API (issue 34, a bypass and lanes): the operator mints a pass for one
// shopper (POST /v1/rooms/:roomId/passes), the shopper's join carries it. A bypass is admitted at once while
// others wait (and recorded as ticket.admitted, as any join admitted at once is); a pass for another user or
// room, an expired one or a tampered one is refused 403 with nothing written; lanes split the admissions by
// share (1:3 here, counted per tick), FIFO inside each; a bad `lanes` is refused 400 naming it, nothing stored.
// The ticks are this test's own (the app's leader is stopped), each with a full allowance: it admits exactly
// ADMIT_PER_TICK, so the proportions are counted in ticks, not in time.
import { mintJoinPass, tickRoom } from "@floodgate/admission";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";
import { getRoom, putRoom } from "./support/room-admin-kit.ts";
import { openTicketSocket } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-passes", {
    env: { ADMIN_API_KEY: ADMIN_KEY, RATE_LIMITS: "room-joins.ip=off" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  await app.admission.leader.stop();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const TEST_EPOCH = 1;
const ADMIT_PER_TICK = 4;

const queueingRoom = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: ADMIT_PER_TICK,
  sessionSeconds: 600,
  ...changes,
});

async function defineRoom(roomId: string, changes: Record<string, unknown> = {}) {
  const defined = await putRoom(app, roomId, queueingRoom(changes));
  expect(defined.statusCode, defined.body).toBe(201);
  return defined.json();
}

/** One tick with a full allowance: it admits exactly ADMIT_PER_TICK if that many wait (and the stock allows). */
async function tick(roomId: string, unitsLeft?: number) {
  const { redis, keys } = app.admission;
  await redis.hset(keys.room(roomId).state, "allowance", ADMIT_PER_TICK, "lastTickAt", Date.now());
  const outcome = await tickRoom(redis, keys, roomId, {
    epoch: TEST_EPOCH,
    backpressure: false,
    cooldownMs: 5000,
    stock: unitsLeft === undefined ? null : { unitsLeft, admitBeyondStock: 0, soldOut: false },
  });
  expect(outcome.result).toBe("ticked");
}

const mintPass = (roomId: string, body: Record<string, unknown>) =>
  documentedInject(app, {
    method: "POST",
    url: `/v1/rooms/${roomId}/passes`,
    headers: { authorization: `Bearer ${env.serverKey}` },
    payload: body,
  });

async function passFor(roomId: string, userId: string, kind: string): Promise<string> {
  const minted = await mintPass(roomId, { userId, kind });
  expect(minted.statusCode, minted.body).toBe(201);
  return minted.json().pass;
}

const join = (roomId: string, userId: string, pass?: string) =>
  post(app, `/v1/rooms/${roomId}/tickets`, pass === undefined ? { userId } : { userId, pass });

async function joinWaiting(roomId: string, userId: string, pass?: string): Promise<string> {
  const joined = await join(roomId, userId, pass);
  expect(joined.statusCode, joined.body).toBe(201);
  expect(joined.json().status).toBe("waiting");
  return joined.json().ticketId;
}

const statusOf = async (roomId: string, ticketId: string) =>
  (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json().status as string;
const hasTicket = async (roomId: string, userId: string) =>
  (await app.redis.hexists(app.admission.keys.room(roomId).users, userId)) === 1;

/** The ticket.admitted entries of the room's event stream (what the workers drain for subscribers). */
async function admittedEvents(roomId: string): Promise<Record<string, string>[]> {
  const entries = await app.redis.xrange(app.admission.keys.room(roomId).events, "-", "+");
  return entries
    .map(([, fields]) =>
      Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i]!, fields[i + 1]!]]))),
    )
    .filter((event) => event.type === "ticket.admitted");
}

describe("bypass", () => {
  it("is admitted at once while others wait, and told as ticket.admitted", async () => {
    await defineRoom("drop");
    const waiting = [await joinWaiting("drop", "early-1"), await joinWaiting("drop", "early-2")];
    const pass = await passFor("drop", "staff-1", "bypass");
    const joined = await join("drop", "staff-1", pass);
    expect(joined.statusCode, joined.body).toBe(201);
    expect(joined.json()).toMatchObject({ status: "admitted", admissionToken: expect.any(String) });
    for (const ticketId of waiting) expect(await statusOf("drop", ticketId)).toBe("waiting");
    // A join admitted at once is an admission the shop may subscribe to, as the tick's are.
    expect(await admittedEvents("drop")).toEqual([
      expect.objectContaining({ ticketId: joined.json().ticketId, userId: "staff-1" }),
    ]);
    // A plain join still waits behind the others.
    const plain = await join("drop", "late-1");
    expect(plain.json()).toMatchObject({ status: "waiting", position: 3 });
  });

  it("admits a shopper already waiting when they join again with one", async () => {
    await defineRoom("rejoin");
    const ticketId = await joinWaiting("rejoin", "vip-1");
    const again = await join("rejoin", "vip-1", await passFor("rejoin", "vip-1", "bypass"));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ ticketId, status: "admitted" });
  });

  it("waits at the head while maxActiveSessions is reached, the next admitted", async () => {
    await defineRoom("capped", { maxActiveSessions: 1 });
    const first = await join("capped", "staff-a", await passFor("capped", "staff-a", "bypass"));
    expect(first.json().status).toBe("admitted");
    await joinWaiting("capped", "shopper-1");
    const second = await join("capped", "staff-b", await passFor("capped", "staff-b", "bypass"));
    expect(second.json()).toMatchObject({ status: "waiting", position: 1 });
  });

  it("never takes a room selling products past its stock: a second bypass for the last unit waits first in line", async () => {
    const { id: productId } = await createProduct(app, { stock: 1, price: 1000 });
    await defineRoom("last-unit", { products: [productId] });
    await tick("last-unit", 1);
    const first = await join("last-unit", "staff-x", await passFor("last-unit", "staff-x", "bypass"));
    expect(first.json().status).toBe("admitted");
    const second = await join("last-unit", "staff-y", await passFor("last-unit", "staff-y", "bypass"));
    expect(second.json()).toMatchObject({ status: "waiting", position: 1 });
    // The first bypass holds the unit (no reservation yet): the tick admits nobody more either.
    await tick("last-unit", 1);
    expect(await statusOf("last-unit", second.json().ticketId)).toBe("waiting");
  });
});

describe("a pass that does not hold", () => {
  it("for another user or another room is refused 403 join_pass_mismatch, nothing written", async () => {
    await defineRoom("mine");
    await defineRoom("theirs");
    const alices = await passFor("mine", "alice", "bypass");
    expectProblem(await join("mine", "mallory", alices), 403, "join_pass_mismatch", "pass");
    expectProblem(await join("theirs", "alice", alices), 403, "join_pass_mismatch", "pass");
    expect(await hasTicket("mine", "mallory")).toBe(false);
    expect(await hasTicket("theirs", "alice")).toBe(false);
  });

  it("expired or tampered with is refused 403 join_pass_invalid, nothing written", async () => {
    await defineRoom("strict");
    const { token: expired } = mintJoinPass(
      app.admission.tokens,
      { roomId: "strict", userId: "bob", pass: { kind: "bypass" }, expiresInSeconds: 10 },
      Date.now() - 60_000,
    );
    expectProblem(await join("strict", "bob", expired), 403, "join_pass_invalid", "pass");

    // Carol's pass rewritten to name Dave: the signature no longer holds.
    const [header, payload, signature] = (await passFor("strict", "carol", "bypass")).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "dave" })).toString("base64url");
    expectProblem(
      await join("strict", "dave", `${header}.${forged}.${signature}`),
      403,
      "join_pass_invalid",
      "pass",
    );

    // An admission token is no join pass (its own JWT typ).
    const admitted = await join("strict", "erin", await passFor("strict", "erin", "bypass"));
    expectProblem(
      await join("strict", "frank", admitted.json().admissionToken),
      403,
      "join_pass_invalid",
      "pass",
    );
    for (const userId of ["bob", "dave", "frank"]) expect(await hasTicket("strict", userId)).toBe(false);
  });

  it("is minted only for the room's lanes, with the operator's key", async () => {
    await defineRoom("minting", { lanes: [{ name: "members", share: 0.5 }] });
    expectProblem(await mintPass("minting", { userId: "a", kind: "press" }), 400, "validation_error", "kind");
    expectProblem(await mintPass("nowhere", { userId: "a", kind: "bypass" }), 404, "not_found", "roomId");
    expectProblem(
      await mintPass("minting", { userId: "a", kind: "bypass", expiresInSeconds: 5 }),
      400,
      "validation_error",
      "expiresInSeconds",
    );
    const minted = await mintPass("minting", { userId: "a", kind: "members", expiresInSeconds: 60 });
    expect(minted.statusCode, minted.body).toBe(201);
    expect(minted.json()).toMatchObject({ roomId: "minting", userId: "a", kind: "members" });
    // The shop's server mints passes (it knows its staff and VIPs): the operator's admin key may not.
    const byAdmin = await documentedInject(app, {
      method: "POST",
      url: "/v1/rooms/minting/passes",
      headers: adminHeaders(),
      payload: { userId: "a", kind: "bypass" },
    });
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.json()).toMatchObject({ code: "forbidden_caller" });
    const anonymous = await documentedInject(app, {
      method: "POST",
      url: "/v1/rooms/minting/passes",
      payload: { userId: "a", kind: "bypass" },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe("lanes", () => {
  it("split each tick's admissions by share (1:3), FIFO inside each lane, the default queue's share 0 here", async () => {
    const defined = await defineRoom("laned", {
      lanes: [
        { name: "members", share: 0.25 },
        { name: "press", share: 0.75 },
      ],
    });
    expect(defined.lanes).toEqual([
      { name: "members", share: 0.25 },
      { name: "press", share: 0.75 },
    ]);
    const members: string[] = [];
    const press: string[] = [];
    for (let i = 0; i < 12; i++) {
      members.push(
        await joinWaiting("laned", `member-${i}`, await passFor("laned", `member-${i}`, "members")),
      );
      press.push(await joinWaiting("laned", `press-${i}`, await passFor("laned", `press-${i}`, "press")));
    }
    const plain = await joinWaiting("laned", "plain-0");
    // A place is counted in the ticket's own lane.
    expect((await get(app, `/v1/rooms/laned/tickets/${press[0]}`)).json().position).toBe(1);
    expect((await get(app, `/v1/rooms/laned/tickets/${members[11]}`)).json().position).toBe(12);
    // Its wait moves at its lane's share of the room's 4/s (nothing admitted yet to measure): the twelfth member
    // 12 / (4 x 0.25); the default queue (share 0 here) waits for both lanes to empty, (24 + 1) / 4. Polled until
    // this process's room directory has read the lanes' counts after the last join (it rereads every 250 ms).
    const eta = async (ticketId: string) =>
      (await get(app, `/v1/rooms/laned/tickets/${ticketId}`)).json().etaSeconds;
    await expect.poll(() => eta(plain), { timeout: 10_000 }).toBe(7);
    expect(await eta(members[11]!)).toBe(12);
    expect(await eta(press[0]!)).toBe(1);

    // The socket pushes the place in the lane too (the fourth in press, then the first once three have gone), and
    // the ETA at press's share: 4 / (4 x 0.75).
    const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const socket = await openTicketSocket(baseUrl, "laned", press[3]!, env.serverKey);
    await socket.next(
      (m) => m.type === "position" && m.position === 4 && m.etaSeconds === 2,
      "the fourth in its lane",
    );

    const admittedOf = async (tickets: string[]) => {
      const statuses = await Promise.all(tickets.map((ticketId) => statusOf("laned", ticketId)));
      return tickets.filter((_, i) => statuses[i] === "admitted");
    };
    for (let ticks = 1; ticks <= 3; ticks++) {
      await tick("laned");
      if (ticks === 1) {
        await socket.next((m) => m.type === "position" && m.position === 1, "the first in its lane");
        socket.close();
      }
      // Each tick: one member, three press, in the order they joined.
      expect(await admittedOf(members)).toEqual(members.slice(0, ticks));
      expect(await admittedOf(press)).toEqual(press.slice(0, 3 * ticks));
      expect(await statusOf("laned", plain)).toBe("waiting");
    }
    // Press has 3 left: its unused share goes to the members (one tick: 3 press and 1 member, then 4 members).
    await tick("laned");
    await tick("laned");
    expect(await admittedOf(press)).toEqual(press);
    expect(await admittedOf(members)).toEqual(members.slice(0, 8));
  });

  it("pushes a new ETA to a waiting socket when the lanes ahead of it fill, its place unchanged", async () => {
    await defineRoom("eta-lanes", {
      lanes: [
        { name: "members", share: 0.25 },
        { name: "press", share: 0.75 },
      ],
    });
    // The default queue's share is 0 here: its first place waits for every lane to empty.
    const plain = await joinWaiting("eta-lanes", "plain-first");
    const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const socket = await openTicketSocket(baseUrl, "eta-lanes", plain, env.serverKey);
    // Nobody in a lane: the whole 4/s.
    await socket.next((m) => m.type === "position" && m.position === 1 && m.etaSeconds === 1, "place 1, 1 s");
    for (let i = 0; i < 8; i++)
      await joinWaiting("eta-lanes", `press-${i}`, await passFor("eta-lanes", `press-${i}`, "press"));
    // Still first in its lane, now behind 8 in press: (8 + 1) / 4.
    await socket.next((m) => m.type === "position" && m.position === 1 && m.etaSeconds === 3, "place 1, 3 s");
    socket.close();
  });

  it("refuses a bad `lanes` 400 naming it, and stores nothing", async () => {
    const lane = (name: string, share: number) => ({ name, share });
    await defineRoom("kept", { lanes: [lane("members", 0.5)] });
    const refusals: unknown[] = [
      [lane("a", 0.5), lane("a", 0.25)],
      [lane("a", 0)],
      [lane("a", 1.5)],
      [lane("a", 0.75), lane("b", 0.5)],
      [lane("bypass", 0.5)],
      [lane("a,b", 0.5)],
      Array.from({ length: 9 }, (_, i) => lane(`lane-${i}`, 0.1)),
    ];
    // Named as `lanes` or a field in it (lanes.1.name).
    const refusedNamingLanes = (answer: Awaited<ReturnType<typeof putRoom>>) =>
      expect(expectProblem(answer, 400, "validation_error").field).toMatch(/^lanes(\.|$)/);
    for (const lanes of refusals) {
      refusedNamingLanes(await putRoom(app, "never-laned", queueingRoom({ lanes })));
      refusedNamingLanes(await putRoom(app, "kept", queueingRoom({ lanes })));
    }
    refusedNamingLanes(
      await putRoom(app, "kept", queueingRoom({ lanes: [lane("a", 0.5)], method: "random" })),
    );
    expect((await getRoom(app, "never-laned")).statusCode).toBe(404);
    expect((await getRoom(app, "kept")).json().lanes).toEqual([lane("members", 0.5)]);
  });
});
