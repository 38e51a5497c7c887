// The waiting room built into the operations, against a real intake process and worker: a guarded call joins
// the room its 403 names, reports the place live (over the ticket's WebSocket, or by polling when that is
// refused), and once admitted resubmits the same operation with the same Idempotency-Key and the token, which
// the checkout keeps for the user's next calls. A ticket revoked while waiting, a timeout and an abort end
// result() without ending the operation; the call's own signal ends the wait in the room. Deposits are the shop's server's (its key); a shopper's payment queues
// as the token's own user.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AdmittedEvent,
  type CheckoutOptions,
  createCheckout,
  FloodgateError,
  type MoneyOperationView,
  type Operation,
  type PositionEvent,
} from "../src/index.ts";
import { createProduct } from "./support/catalog-admin.ts";
import { shopperTokens } from "./support/customer-sessions.ts";
import { eventually } from "./support/eventually.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { refusal } from "./support/refusal.ts";
import { refusedWebSocket } from "./support/refused-web-socket.ts";
import { ADMIN_API_KEY, putRoom, revokeTicket } from "./support/room-admin.ts";
import { watchedWebSocket } from "./support/watched-web-socket.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-room", { env: { ADMIN_API_KEY } });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
});

afterAll(async () => {
  await worker?.stop();
  await intake?.kill();
  await env?.cleanup();
});

// Each test guards deposits with a room of its own; one guard per route class at a time.
let room = "";
afterEach(() => putRoom(intake.baseUrl, room, { mode: "off", guards: [] }));

// Nobody is admitted before a room's start: a ticket waits exactly as long as the test wants, and bringing the
// start forward to now lets the room admit it.
const later = () => new Date(Date.now() + 600_000).toISOString();
const now = () => new Date().toISOString();
const RESULT_WAIT = { timeoutMs: 30_000 };

/** The shop's server: its key deposits for any user it names. */
const shopServer = (options: Omit<CheckoutOptions, "baseUrl" | "getToken"> = {}) =>
  createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey, ...options });

/** The room's events an operation emitted, in order. */
function listen(operation: Operation<MoneyOperationView>) {
  const positions: PositionEvent[] = [];
  const admissions: AdmittedEvent[] = [];
  operation.on("position", (event) => positions.push(event));
  operation.on("admitted", (event) => admissions.push(event));
  return { positions, admissions };
}

describe("a waiting room in front of deposits", () => {
  it("queues with live places, then resubmits with the same key and the token; later calls carry it", async () => {
    room = "sdk-sale";
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["deposits"] });
    const sockets = watchedWebSocket();
    const recorder = recordingFetch();
    const checkout = shopServer({ WebSocket: sockets.WebSocket, fetch: recorder.fetch });
    const deposit = checkout.deposit({ userId: "queued", amount: 800 });
    const { positions, admissions } = listen(deposit);

    await eventually(() => positions.length > 0, "a position");
    expect(deposit.status()).toBe("waiting");
    expect(deposit.id).toBeUndefined();
    expect(positions[0]).toEqual({ roomId: room, position: 1, etaSeconds: expect.any(Number) });
    await putRoom(intake.baseUrl, room, { startsAt: now(), guards: ["deposits"] });
    expect(await deposit.result(RESULT_WAIT)).toMatchObject({
      id: deposit.id,
      status: "succeeded",
      amount: 800,
    });

    expect(admissions).toEqual([{ roomId: room, expiresAt: expect.any(String) }]);
    const posts = recorder.to("POST", /\/deposits$/);
    expect(posts.map((call) => call.status)).toEqual([403, 202]);
    expect(posts.map((call) => call.idempotencyKey)).toEqual([
      deposit.idempotencyKey,
      deposit.idempotencyKey,
    ]);
    expect(posts[0]!.admissionToken).toBeNull();
    const token = posts[1]!.admissionToken;
    expect(token).toBeTruthy();
    expect(recorder.to("POST", /\/tickets$/)).toHaveLength(1);
    // The place came over the ticket's socket (no polls), then the status over the operation's, each opened
    // with the bearer as access_token.
    const access = `/ws\\?access_token=${env.serverKey}$`;
    expect(sockets.urls).toEqual([
      expect.stringMatching(new RegExp(`/v1/rooms/${room}/tickets/tkt_\\w+${access}`)),
      expect.stringMatching(new RegExp(`/v1/operations/${deposit.id}${access}`)),
    ]);
    expect(recorder.to("GET", /./)).toEqual([]);

    // The same shopper's next deposit carries the token at once: no refusal, no queue.
    const next = checkout.deposit({ userId: "queued", amount: 100 });
    await next.result(RESULT_WAIT);
    const nextPosts = recorder
      .to("POST", /\/deposits$/)
      .filter((call) => call.idempotencyKey === next.idempotencyKey);
    expect(nextPosts.map((call) => [call.status, call.admissionToken])).toEqual([[202, token]]);
    expect(recorder.to("POST", /\/tickets$/)).toHaveLength(1);
  });

  it("tells the units left with each place when the room sells the product", async () => {
    room = "sdk-drop";
    const productId = await createProduct(intake.baseUrl, 500, 7);
    await putRoom(intake.baseUrl, room, { startsAt: later(), products: [productId] });
    const order = shopServer().placeOrder({ userId: "drop-fan", items: [{ productId, quantity: 1 }] });
    const positions: PositionEvent[] = [];
    order.on("position", (event) => positions.push(event));

    // The join's own answer may come before the room's leader counted the stock; the live places then carry it.
    await eventually(
      () => positions.some((place) => place.unitsLeft !== undefined),
      "a place with units left",
    );
    expect(positions.at(-1)).toEqual({
      roomId: room,
      position: 1,
      etaSeconds: expect.any(Number),
      unitsLeft: 7,
    });
    await putRoom(intake.baseUrl, room, { startsAt: now(), products: [productId] });
    expect(await order.result(RESULT_WAIT)).toMatchObject({ status: "awaiting_payment" });
  });

  it("follows the place by polling the ticket when its socket is refused", async () => {
    room = "sdk-no-sockets";
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["deposits"] });
    const refused = refusedWebSocket();
    const recorder = recordingFetch();
    const checkout = shopServer({ WebSocket: refused.WebSocket, fetch: recorder.fetch, pollIntervalMs: 100 });
    const deposit = checkout.deposit({ userId: "old-proxy", amount: 50 });
    const { positions, admissions } = listen(deposit);
    await eventually(() => recorder.to("GET", /\/tickets\/tkt_\w+$/).length > 0, "a polled ticket");
    expect(positions).toEqual([{ roomId: room, position: 1, etaSeconds: expect.any(Number) }]);
    await putRoom(intake.baseUrl, room, { startsAt: now(), guards: ["deposits"] });
    expect(await deposit.result(RESULT_WAIT)).toMatchObject({ status: "succeeded" });
    expect(admissions).toHaveLength(1);
    expect(recorder.to("POST", /\/deposits$/).map((call) => call.status)).toEqual([403, 202]);
    // Three refused attempts for the ticket, three for the operation; both then polled.
    expect(refused.attempts()).toBe(6);
    expect(recorder.to("GET", new RegExp(`^/v1/deposits/${deposit.id}$`)).length).toBeGreaterThanOrEqual(1);
  });

  it("rejects result() with admission_lost when the ticket is revoked before its turn", async () => {
    room = "sdk-revoked";
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["deposits"] });
    const recorder = recordingFetch();
    const checkout = shopServer({ fetch: recorder.fetch });
    const deposit = checkout.deposit({ userId: "revoked", amount: 50 });
    const { positions } = listen(deposit);
    await eventually(() => positions.length > 0, "a position");
    const { ticketId } = JSON.parse(recorder.to("POST", /\/tickets$/)[0]!.body);
    await revokeTicket(intake.baseUrl, room, ticketId);
    const lost = await refusal(deposit.result(RESULT_WAIT));
    expect(lost).toBeInstanceOf(FloodgateError);
    expect(lost).toMatchObject({ code: "admission_lost", problem: { roomId: room, reason: "revoked" } });
    expect(recorder.to("POST", /\/deposits$/).map((call) => call.status)).toEqual([403]);
  });

  it("rejects result() on timeoutMs or an abort, while the operation goes on to its end", async () => {
    room = "sdk-patience";
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["deposits"] });
    const checkout = shopServer();
    const deposit = checkout.deposit({ userId: "patient", amount: 75 });

    expect(await refusal(deposit.result({ timeoutMs: 50 }))).toMatchObject({ name: "TimeoutError" });
    const page = new AbortController();
    const waiting = refusal(deposit.result({ signal: page.signal }));
    const leaving = new Error("the shopper left the page");
    page.abort(leaving);
    expect(await waiting).toBe(leaving);
    expect(await refusal(deposit.result({ signal: page.signal }))).toBe(leaving);
    // The rejections ended the calls, not the deposit: it goes on into the room. A loaded machine may still be
    // submitting it when the 50 ms are up, so the test waits for it to be waiting (an ended one never is).
    await eventually(() => deposit.status() === "waiting", "the deposit waiting in the room");

    await putRoom(intake.baseUrl, room, { startsAt: now(), guards: ["deposits"] });
    expect(await deposit.result(RESULT_WAIT)).toMatchObject({ status: "succeeded", amount: 75 });
  });

  it("stops waiting when the call's signal aborts: the ticket's socket closed, nothing resubmitted", async () => {
    room = "sdk-give-up";
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["deposits"] });
    const sockets: WebSocket[] = [];
    class KeptWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    const recorder = recordingFetch();
    const checkout = shopServer({ WebSocket: KeptWebSocket, fetch: recorder.fetch });
    const shopper = new AbortController();
    const deposit = checkout.deposit({ userId: "gives-up", amount: 60, signal: shopper.signal });
    const { positions } = listen(deposit);
    await eventually(() => positions.length > 0, "a position");
    const leaving = new Error("the shopper left the queue");
    shopper.abort(leaving);
    expect(await refusal(deposit.result())).toBe(leaving);
    expect(deposit.status()).toBe("aborted");
    // CLOSING is the SDK's part (it called close()); CLOSED also needs the server's answer, which a busy machine
    // may delay past any fixed wait.
    await eventually(() => sockets[0]!.readyState >= WebSocket.CLOSING, "the ticket's socket closed");

    // Admitting everyone now resubmits nothing: the call is over.
    await putRoom(intake.baseUrl, room, { startsAt: now(), guards: ["deposits"] });
    expect(recorder.to("POST", /\/deposits$/).map((call) => call.status)).toEqual([403]);
    expect(sockets).toHaveLength(1);
  });
});

describe("a waiting room in front of a shopper's payments", () => {
  it("queues the token's own user (no userId anywhere), then pays with the same key and the token", async () => {
    room = "sdk-shopper-sale";
    await shopServer().deposit({ userId: "signed-in", amount: 1000 }).result(RESULT_WAIT);
    await putRoom(intake.baseUrl, room, { startsAt: later(), guards: ["payments"] });
    const sockets = watchedWebSocket();
    const recorder = recordingFetch();
    const tokens = shopperTokens(intake.baseUrl, env.serverKey, "signed-in");
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      WebSocket: sockets.WebSocket,
      fetch: recorder.fetch,
    });
    const payment = checkout.pay({ amount: 300 });
    const { positions, admissions } = listen(payment);
    await eventually(() => positions.length > 0, "a position");
    expect(payment.status()).toBe("waiting");
    await putRoom(intake.baseUrl, room, { startsAt: now(), guards: ["payments"] });
    expect(await payment.result(RESULT_WAIT)).toMatchObject({
      userId: "signed-in",
      amount: 300,
      status: "succeeded",
    });
    expect(admissions).toHaveLength(1);

    const [join] = recorder.to("POST", /\/tickets$/);
    // The join names nobody: the room queues the token's user.
    expect(JSON.parse(join!.sent!)).toEqual({});
    expect(JSON.parse(join!.body)).toMatchObject({ ticketId: expect.stringMatching(/^tkt_/) });
    const posts = recorder.to("POST", /^\/v1\/payments$/);
    expect(posts.map((call) => [call.status, call.idempotencyKey])).toEqual([
      [403, payment.idempotencyKey],
      [202, payment.idempotencyKey],
    ]);
    expect(posts[1]!.admissionToken).toBeTruthy();
    // One token asked of the page, carried by every call and by both sockets.
    expect(tokens.minted).toHaveLength(1);
    expect(recorder.calls.every((call) => call.authorization === `Bearer ${tokens.minted[0]}`)).toBe(true);
    expect(sockets.urls.map((url) => new URL(url).searchParams.get("access_token"))).toEqual([
      tokens.minted[0],
      tokens.minted[0],
    ]);
    expect(await checkout.wallet("signed-in")).toMatchObject({ balance: 700 });
  });
});
