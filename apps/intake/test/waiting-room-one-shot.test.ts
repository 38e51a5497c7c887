// One-shot admission through the HTTP API, with this process as the admission leader: in a room defined with
// `admission: "one-shot"` the admission token is consumed by the guarded request accepted with it (an order, a
// coupon issue, a payment), in that request's own script call (its commit on a cluster). A second request with
// the token is refused 403 admission_used; a retry of the request that used it (same Idempotency-Key) still
// replays its answer; a refused request (out of stock) leaves the token usable; a session room's token serves
// again and again, as before.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders, createCoupon } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  get,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
const ids = { scarce: "", plenty: "", loose: "", couponA: "", couponB: "" };

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-one-shot", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  ids.scarce = (await createProduct(app, { stock: 1, price: 500 })).id;
  ids.plenty = (await createProduct(app, { stock: 100, price: 700 })).id;
  ids.loose = (await createProduct(app, { stock: 100, price: 300 })).id;
  ids.couponA = (await createCoupon(app)).id;
  ids.couponB = (await createCoupon(app)).id;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const room = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: 50,
  sessionSeconds: 600,
  // Every shopper of these tests is admitted at once, whatever the stock-aware cap would hold back.
  admitBeyondStock: 100,
  ...changes,
});
const putRoom = (roomId: string, body: unknown) =>
  documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: body as object,
  });

async function admittedToken(roomId: string, userId: string): Promise<string> {
  const joined = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(joined.statusCode, joined.body).toBe(201);
  const { ticketId } = joined.json();
  const view = await waitUntil(
    async () => (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json(),
    (ticket) => ticket.status === "admitted",
    `${userId} to be admitted`,
  );
  return view.admissionToken;
}

const order = (userId: string, productId: string, quantity: number, token: string, key: string) =>
  post(
    app,
    "/v1/orders",
    { userId, items: [{ productId, quantity }] },
    { "admission-token": token, "idempotency-key": key },
  );
const issue = (couponId: string, userId: string, token: string, key: string) =>
  post(
    app,
    `/v1/coupons/${couponId}/issues`,
    { userId },
    { "admission-token": token, "idempotency-key": key },
  );

function expectUsed(response: Parameters<typeof expectProblem>[0], roomId: string) {
  const problem = expectProblem(response, 403, "admission_used", "Admission-Token");
  expect(problem).toMatchObject({ roomId, reason: "used", joinUrl: `/v1/rooms/${roomId}/tickets` });
}

describe("one-shot admission", () => {
  it("is chosen per room: session by default, one-shot on request, anything else refused naming the field", async () => {
    expectProblem(
      await putRoom("drop", room({ products: [ids.scarce, ids.plenty], admission: "twice" })),
      400,
      "validation_error",
      "admission",
    );
    const defined = await putRoom(
      "drop",
      room({
        products: [ids.scarce, ids.plenty],
        coupons: [ids.couponA, ids.couponB],
        admission: "one-shot",
      }),
    );
    expect(defined.statusCode, defined.body).toBe(201);
    expect(defined.json()).toMatchObject({ admission: "one-shot", queueing: true });
    const session = await putRoom("loose", room({ products: [ids.loose] }));
    expect(session.statusCode, session.body).toBe(201);
    expect(session.json()).toMatchObject({ admission: "session" });
  });

  it("consumes the token with the order it places: a retry with the same key replays, another request is refused", async () => {
    const token = await admittedToken("drop", "fan-1");
    const placed = await order("fan-1", ids.plenty, 1, token, "fan-1-first");
    expect(placed.statusCode, placed.body).toBe(202);
    const orderId = placed.json().id as string;

    const retried = await order("fan-1", ids.plenty, 1, token, "fan-1-first");
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json().id).toBe(orderId);

    const streamed = await totalStreamLength(app);
    expectUsed(await order("fan-1", ids.plenty, 1, token, "fan-1-second"), "drop");
    // A coupon issue of the same room is refused with the spent token too, and nothing is written.
    expectUsed(await issue(ids.couponA, "fan-1", token, "fan-1-coupon"), "drop");
    expect(await totalStreamLength(app)).toBe(streamed);
  });

  it("leaves the token usable when the order it carries is refused", async () => {
    const token = await admittedToken("drop", "fan-2");
    expectProblem(await order("fan-2", ids.scarce, 2, token, "fan-2-too-many"), 409, "out_of_stock");
    const placed = await order("fan-2", ids.scarce, 1, token, "fan-2-one");
    expect(placed.statusCode, placed.body).toBe(202);
    expectUsed(await order("fan-2", ids.plenty, 1, token, "fan-2-again"), "drop");
  });

  it("consumes the token with the coupon issue it carries", async () => {
    const token = await admittedToken("drop", "fan-3");
    const issued = await issue(ids.couponA, "fan-3", token, "fan-3-a");
    expect(issued.statusCode, issued.body).toBe(202);
    const replayed = await issue(ids.couponA, "fan-3", token, "fan-3-a");
    expect(replayed.statusCode, replayed.body).toBe(202);
    expect(replayed.json().id).toBe(issued.json().id);
    expectUsed(await issue(ids.couponB, "fan-3", token, "fan-3-b"), "drop");
    expectUsed(await order("fan-3", ids.plenty, 1, token, "fan-3-order"), "drop");
  });

  it("consumes the token with a payment on a one-shot room guarding payments", async () => {
    const defined = await putRoom("tills", room({ guards: ["payments"], admission: "one-shot" }));
    expect(defined.statusCode, defined.body).toBe(201);
    const token = await admittedToken("tills", "payer");
    const pay = (key: string) =>
      post(
        app,
        "/v1/payments",
        { userId: "payer", amount: 100 },
        { "admission-token": token, "idempotency-key": key },
      );
    const paid = await pay("payer-first");
    expect(paid.statusCode, paid.body).toBe(202);
    const retried = await pay("payer-first");
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json().id).toBe(paid.json().id);
    expectUsed(await pay("payer-second"), "tills");
  });

  it("keeps a session room's token for every request of its session", async () => {
    const token = await admittedToken("loose", "regular");
    for (const key of ["regular-1", "regular-2", "regular-3"]) {
      const placed = await order("regular", ids.loose, 1, token, key);
      expect(placed.statusCode, placed.body).toBe(202);
    }
  });
});
