// The client in Node against a real intake process and Redis: idempotent payments, the problems a page branches
// on, retries that keep their Idempotency-Key, and a payment a waiting room guards: refused without a token,
// accepted with the one the room gives over Node's own WebSocket. (The room's other paths: waiting-room.test.ts.)
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AdmissionUpdate, FloodgateClient, FloodgateProblemError } from "../src/index.ts";
import { refusal } from "./support/refusal.ts";
import { ADMIN_API_KEY, putRoom, resetRateLimit, setUserRateLimit } from "./support/room-admin.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let client: FloodgateClient;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-client", { env: { ADMIN_API_KEY } });
  intake = await startIntakeProcess(env.config);
  client = new FloodgateClient({ baseUrl: intake.baseUrl });
});

afterAll(async () => {
  await intake?.kill();
  await env?.cleanup();
});

/** Real fetch, with every request's Idempotency-Key and answer status written down. */
function recordingFetch() {
  const calls: { idempotencyKey: string | null; status: number }[] = [];
  const recording = async (url: string, init?: RequestInit) => {
    const response = await fetch(url, init);
    calls.push({
      idempotencyKey: new Headers(init?.headers).get("idempotency-key"),
      status: response.status,
    });
    return response;
  };
  return { fetch: recording, calls };
}

describe("payments", () => {
  it("replays the same payment for the same key and refuses that key with another body", async () => {
    const idempotencyKey = `order-${crypto.randomUUID()}`;
    const first = await client.pay({ userId: "replayer", amount: 2500, idempotencyKey });
    expect(first).toMatchObject({ status: "pending", idempotencyKey, replayed: false });
    expect(first.id).toMatch(/^pay_/);
    const again = await client.pay({ userId: "replayer", amount: 2500, idempotencyKey });
    expect(again).toMatchObject({ id: first.id, replayed: true });
    expect(await client.payment(first.id)).toMatchObject({ id: first.id, userId: "replayer", amount: 2500 });

    const reused = await refusal(client.pay({ userId: "replayer", amount: 9999, idempotencyKey }));
    expect(reused).toBeInstanceOf(FloodgateProblemError);
    expect(reused).toMatchObject({ status: 422, code: "idempotency_key_reused", existingId: first.id });
  });

  it("sends a fresh key when the caller gives none, and names the field of a validation error", async () => {
    const paid = await client.pay({ userId: "keyless", amount: 10 });
    expect(paid.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const other = await client.pay({ userId: "keyless", amount: 10 });
    expect(other.id).not.toBe(paid.id);

    const recorder = recordingFetch();
    const recorded = new FloodgateClient({ baseUrl: intake.baseUrl, fetch: recorder.fetch });
    const badUser = await refusal(recorded.pay({ userId: "not a user id", amount: 10 }));
    expect(badUser).toMatchObject({
      status: 400,
      code: "validation_error",
      field: "userId",
      retryable: false,
    });
    const badAmount = await refusal(recorded.pay({ userId: "shopper", amount: 1.5 }));
    expect(badAmount).toMatchObject({ code: "validation_error", field: "amount" });
    // A 4xx other than 429 is refused again exactly as it is: asked once each.
    expect(recorder.calls.map((call) => call.status)).toEqual([400, 400]);
  });

  it("retries a 429 after Retry-After with the same Idempotency-Key", async () => {
    await setUserRateLimit(intake.baseUrl, "payments", { rate: 1, burst: 1 });
    try {
      const recorder = recordingFetch();
      const limited = new FloodgateClient({ baseUrl: intake.baseUrl, fetch: recorder.fetch });
      await limited.pay({ userId: "impatient", amount: 5 });
      const second = await limited.pay({ userId: "impatient", amount: 5 });
      expect(second.id).toMatch(/^pay_/);
      const attempts = recorder.calls.slice(1);
      expect(attempts[0]!.status).toBe(429);
      expect(attempts.at(-1)!.status).toBe(202);
      expect(new Set(attempts.map((call) => call.idempotencyKey))).toEqual(new Set([second.idempotencyKey]));
    } finally {
      await resetRateLimit(intake.baseUrl, "payments");
    }
  });
});

describe("a waiting room that guards payments", () => {
  beforeAll(() => putRoom(intake.baseUrl, "checkout", { admitPerSecond: 5, guards: ["payments"] }));
  afterAll(() => putRoom(intake.baseUrl, "checkout", { mode: "off", guards: [] }));

  it("refuses a payment without a token, naming the room to join", async () => {
    const problem = await refusal(client.pay({ userId: "no-token", amount: 100 }));
    expect(problem).toBeInstanceOf(FloodgateProblemError);
    expect(problem).toMatchObject({
      status: 403,
      code: "waiting_room_required",
      roomId: "checkout",
      joinUrl: "/v1/rooms/checkout/tickets",
      reason: "missing",
    });
  });

  it("admits over Node's WebSocket, and the token opens the payment", async () => {
    const shopper = new FloodgateClient({ baseUrl: intake.baseUrl });
    const problem = (await refusal(
      shopper.pay({ userId: "ws-shopper", amount: 100 }),
    )) as FloodgateProblemError;
    const room = shopper.room(problem.roomId!);
    const ticket = await room.join("ws-shopper");
    expect(ticket).toMatchObject({ roomId: "checkout", status: "waiting" });

    const updates: AdmissionUpdate[] = [];
    const admission = await room.waitForAdmission((update) => updates.push(update));
    expect(admission).toMatchObject({ ticketId: ticket.ticketId, roomId: "checkout" });
    expect(updates.at(-1)).toMatchObject({ type: "admitted", via: "websocket" });
    expect(updates.every((update) => update.via === "websocket")).toBe(true);

    shopper.setAdmissionToken(admission.admissionToken);
    const paid = await shopper.pay({ userId: "ws-shopper", amount: 100 });
    expect(paid.id).toMatch(/^pay_/);
    // The token is the user's own: another user's payment with it is still refused.
    expect(await refusal(shopper.pay({ userId: "someone-else", amount: 100 }))).toMatchObject({
      code: "waiting_room_required",
      reason: "wrong_user",
    });

    // Joining again is the same ticket, already admitted: no waiting at all.
    const rejoined = shopper.room("checkout", { WebSocket: undefined });
    expect(await rejoined.join("ws-shopper")).toMatchObject({
      ticketId: ticket.ticketId,
      status: "admitted",
    });
    expect(await rejoined.waitForAdmission()).toMatchObject({ ticketId: ticket.ticketId });
  });
});
