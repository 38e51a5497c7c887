// Queueing on page load against a real intake process: joinRoom() joins, tells the place live and the admission
// (with its token), and keeps the ticket in the given storage, so a reloaded page (a new checkout, the same
// storage) follows the same ticket from the same place without joining again; a stored ticket the server does not
// know joins afresh. A sale that sells out while the shopper waits is told (sold_out) and the wait goes on: a
// restock admits. A join refused because the sale sold out, a ticket revoked while waiting, and a room closed by
// its endsAt (before the join or while waiting) end the wait with events and a rejected admission(). A worker
// applies the deposit, order and payment that sell the unit.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCheckout, type PositionEvent, type RoomAdmission, type RoomHandle } from "../src/index.ts";
import { createProduct } from "./support/catalog-admin.ts";
import { eventually } from "./support/eventually.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { refusal } from "./support/refusal.ts";
import { ADMIN_API_KEY, joinAhead, mintJoinPass, putRoom, revokeTicket } from "./support/room-admin.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-join-room", { env: { ADMIN_API_KEY } });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
});

afterAll(async () => {
  await worker?.stop();
  await intake?.kill();
  await env?.cleanup();
});

let room = "";
afterEach(() => putRoom(intake.baseUrl, room, { mode: "off", guards: [] }));

// Nobody is admitted before a room's start: bringing it forward to now lets the room admit.
const later = () => new Date(Date.now() + 600_000).toISOString();
const now = () => new Date().toISOString();

/** A tab's sessionStorage: what survives its reloads. */
const tabStorage = () => {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
};

/** One load of the room page: a new checkout (the shop's server joins for `userId`) and its events. */
function loadPage(roomId: string, userId: string, storage: ReturnType<typeof tabStorage>, pass?: string) {
  const recorder = recordingFetch();
  const checkout = createCheckout({
    baseUrl: intake.baseUrl,
    getToken: () => env.serverKey,
    fetch: recorder.fetch,
  });
  // Closing the tab or reloading ends the page's wait.
  const tab = new AbortController();
  const handle: RoomHandle = checkout.joinRoom(roomId, { userId, storage, signal: tab.signal, pass });
  const seen = { positions: [] as PositionEvent[], admitted: [] as RoomAdmission[], events: [] as string[] };
  handle.on("position", (place) => seen.positions.push(place));
  handle.on("admitted", (admission) => {
    seen.admitted.push(admission);
    seen.events.push("admitted");
  });
  for (const event of ["sold_out", "closed", "error"] as const)
    handle.on(event, () => seen.events.push(event));
  return { handle, recorder, seen, unload: () => tab.abort(new Error("the page was unloaded")) };
}

describe("joinRoom on page load", () => {
  it("tells the place, keeps the ticket across a reload, then hands over the admission and its token", async () => {
    room = "load-sale";
    await putRoom(intake.baseUrl, room, { startsAt: later() });
    await joinAhead(intake.baseUrl, env.serverKey, room, ["early-1", "early-2"]);
    const storage = tabStorage();

    const first = loadPage(room, "loader", storage);
    await eventually(() => first.seen.positions.length > 0, "a place");
    expect(first.seen.positions[0]).toEqual({ roomId: room, position: 3, etaSeconds: expect.any(Number) });
    expect(first.recorder.to("POST", /\/tickets$/)).toHaveLength(1);
    const ticketId = storage.items.get(`floodgate.room.${room}`);
    expect(ticketId).toBe(JSON.parse(first.recorder.to("POST", /\/tickets$/)[0]!.body).ticketId);

    // The reload: the old page's wait ends with it; the new one reads the stored ticket instead of joining.
    first.unload();
    const reload = loadPage(room, "loader", storage);
    await eventually(() => reload.seen.positions.length > 0, "the place after the reload");
    expect(reload.seen.positions[0]).toEqual({ roomId: room, position: 3, etaSeconds: expect.any(Number) });
    expect(reload.recorder.to("POST", /\/tickets$/)).toEqual([]);
    expect(reload.recorder.to("GET", /\/tickets\/tkt_\w+$/).map((call) => call.path)).toEqual([
      `/v1/rooms/${room}/tickets/${ticketId}`,
    ]);

    await putRoom(intake.baseUrl, room, { startsAt: now() });
    const admission = await reload.handle.admission();
    expect(admission).toEqual({
      roomId: room,
      ticketId,
      token: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(reload.seen.admitted).toEqual([admission]);
    // The token is the room's for this shopper: the intake's own check takes it.
    const check = await fetch(`${intake.baseUrl}/v1/rooms/${room}/admissions/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: admission.token }),
    });
    expect(await check.json()).toMatchObject({ valid: true });
    expect(reload.seen.events).toEqual(["admitted"]);
    // A reload after the admission hands the admission over again, still without joining.
    const afterwards = loadPage(room, "loader", storage);
    expect(await afterwards.handle.admission()).toMatchObject({ roomId: room, ticketId });
    expect(afterwards.recorder.to("POST", /\/tickets$/)).toEqual([]);
  });

  it("sends a join pass: a bypass admits at once, the ticket a reload had stored included", async () => {
    room = "load-bypass";
    await putRoom(intake.baseUrl, room, { startsAt: later() });
    await joinAhead(intake.baseUrl, env.serverKey, room, ["early-1"]);
    const storage = tabStorage();
    const first = loadPage(room, "staff", storage);
    await eventually(() => first.seen.positions.length > 0, "a place");
    const ticketId = storage.items.get(`floodgate.room.${room}`);
    first.unload();

    // With a pass the page joins again (not only reads the stored ticket), and the bypass admits that ticket.
    const pass = await mintJoinPass(intake.baseUrl, env.serverKey, room, "staff", "bypass");
    const withPass = loadPage(room, "staff", storage, pass);
    expect(await withPass.handle.admission()).toMatchObject({
      roomId: room,
      ticketId,
      token: expect.any(String),
    });
    const joins = withPass.recorder.to("POST", /\/tickets$/);
    expect(joins.map((call) => JSON.parse(call.sent!))).toEqual([{ userId: "staff", pass }]);
  });

  it("joins afresh when the stored ticket is one the server does not know", async () => {
    room = "load-forgotten";
    await putRoom(intake.baseUrl, room, { startsAt: later() });
    const storage = tabStorage();
    storage.setItem(`floodgate.room.${room}`, "tkt_00000000000000000000000000");
    const page = loadPage(room, "forgotten", storage);
    await eventually(() => page.seen.positions.length > 0, "a place");
    expect(page.recorder.calls.map((call) => [call.method, call.status])).toEqual([
      ["GET", 404],
      ["POST", 201],
    ]);
    const joined = JSON.parse(page.recorder.calls[1]!.body).ticketId;
    expect(storage.items.get(`floodgate.room.${room}`)).toBe(joined);
    expect(page.seen.positions).toEqual([{ roomId: room, position: 1, etaSeconds: expect.any(Number) }]);
  });

  it("ends with error and admission_lost when the ticket is revoked while waiting, and forgets it", async () => {
    room = "load-revoked";
    await putRoom(intake.baseUrl, room, { startsAt: later() });
    const storage = tabStorage();
    const page = loadPage(room, "revoked", storage);
    await eventually(() => page.seen.positions.length > 0, "a place");
    await revokeTicket(intake.baseUrl, room, storage.items.get(`floodgate.room.${room}`)!);
    expect(await refusal(page.handle.admission())).toMatchObject({
      code: "admission_lost",
      problem: { roomId: room, reason: "revoked" },
    });
    expect(page.seen.events).toEqual(["error"]);
    expect(storage.items.size).toBe(0);
  });

  it("tells sold_out while waiting and keeps waiting: a restock moves the line and admits", async () => {
    room = "load-restock";
    const productId = await createProduct(intake.baseUrl, 500, 1);
    await putRoom(intake.baseUrl, room, { products: [productId] });
    // The one unit is reserved by an earlier shopper, so the room admits nobody more until it comes back.
    const shop = createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey });
    await shop.deposit({ userId: "first-buyer", amount: 500 }).result({ timeoutMs: 30_000 });
    const order = await shop
      .placeOrder({ userId: "first-buyer", items: [{ productId, quantity: 1 }] })
      .result({ timeoutMs: 30_000 });
    expect(order.status).toBe("awaiting_payment");
    const page = loadPage(room, "restock-fan", tabStorage());
    // The join's own answer may come before the room's leader counted the reservation; the live places then do.
    await eventually(
      () => page.seen.positions.some((place) => place.unitsLeft === 0),
      "a place with none left",
    );
    expect(page.seen.positions.at(-1)).toMatchObject({ position: 1, unitsLeft: 0 });
    expect(page.seen.events).toEqual([]);

    // Paid: nothing left and nothing can come back.
    await shop.pay({ userId: "first-buyer", amount: 500, orderId: order.id }).result({ timeoutMs: 30_000 });
    await eventually(() => page.seen.events.includes("sold_out"), "sold_out", 30_000);
    const restock = await fetch(`${intake.baseUrl}/v1/products/${productId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ stockAdded: 1 }),
    });
    expect(restock.status).toBe(200);
    expect(await page.handle.admission()).toMatchObject({ roomId: room });
    expect(page.seen.events).toEqual(["sold_out", "admitted"]);
  });

  it("tells sold_out when the room's sale has nothing left, and keeps no ticket", async () => {
    room = "load-sold-out";
    const productId = await createProduct(intake.baseUrl, 500, 0);
    await putRoom(intake.baseUrl, room, { startsAt: later(), products: [productId] });
    // The leader finds the room sold out at its next tick; from then on a join is refused.
    let probe = 0;
    for (let joins = 0; probe !== 410 && joins < 100; joins++) {
      const response = await fetch(`${intake.baseUrl}/v1/rooms/${room}/tickets`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.serverKey}`, "content-type": "application/json" },
        body: JSON.stringify({ userId: "prober" }),
      });
      probe = response.status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(probe, "a join refused as sold out").toBe(410);
    const storage = tabStorage();
    const page = loadPage(room, "too-late", storage);
    expect(await refusal(page.handle.admission())).toMatchObject({ name: "RoomSoldOutError", status: 410 });
    expect(page.seen.events).toEqual(["sold_out"]);
    expect(storage.items.size).toBe(0);
  });

  it("tells closed when the room's endsAt passes while the shopper waits, and forgets the ticket", async () => {
    room = "load-closing";
    await putRoom(intake.baseUrl, room, { startsAt: later() });
    const storage = tabStorage();
    const page = loadPage(room, "closing", storage);
    await eventually(() => page.seen.positions.length > 0, "a place");
    // The operator ends the sale: an endsAt already past closes the room at the leader's next tick, which admits
    // no one (the pre-queue it lets go is not admitted either).
    await putRoom(intake.baseUrl, room, { endsAt: now() });
    expect(await refusal(page.handle.admission())).toMatchObject({ code: "room_closed" });
    expect(page.seen.events).toEqual(["closed"]);
    expect(storage.items.size).toBe(0);
  });

  it("tells closed when a join comes after the room's endsAt, and keeps no ticket", async () => {
    room = "load-closed";
    await putRoom(intake.baseUrl, room, { endsAt: new Date(Date.now() - 60_000).toISOString() });
    const storage = tabStorage();
    const page = loadPage(room, "after-hours", storage);
    expect(await refusal(page.handle.admission())).toMatchObject({ code: "room_closed", status: 410 });
    expect(page.seen.events).toEqual(["closed"]);
    expect(page.recorder.to("POST", /\/tickets$/).map((call) => call.status)).toEqual([410]);
    expect(storage.items.size).toBe(0);
  });
});
