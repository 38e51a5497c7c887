// Stripe's idempotency semantics (issue 18): an Idempotency-Key replays its first answer, refusals included, for
// IDEMPOTENCY_TTL_SECONDS. A refused order stays refused for its key even after stock comes back (a new key
// tries again); a retried coupon issue answers its 202, not "already issued". Admission refusals and bad input
// are not remembered: they never ran. Recording and replaying cost no extra Redis round trip.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, createCoupon } from "./support/coupon-test-kit.ts";
import { expectProblem, get, metricValue, post, totalStreamLength } from "./support/intake-test-kit.ts";
import { createProduct, patchProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("idempotent-refusals", {
    env: { ...ADMIN_ENV, MAX_UNITS_PER_USER: "4", RATE_LIMITS: "*.ip=off,payments.user=1/m:1" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const order = (userId: string, productId: string, quantity: number, key: string) =>
  post(app, "/v1/orders", { userId, items: [{ productId, quantity }] }, { "idempotency-key": key });
const claim = (couponId: string, userId: string, key?: string) =>
  post(
    app,
    `/v1/coupons/${couponId}/issues`,
    { userId },
    key === undefined ? {} : { "idempotency-key": key },
  );
/** A replay answers the first problem word for word but for the request id, which is each request's own. */
const sameProblem = (body: Record<string, unknown>) => {
  const { requestId: _own, ...rest } = body;
  return rest;
};
const redisCommands = async () =>
  metricValue((await get(app, "/metrics")).body, "floodgate_intake_redis_commands_total");

describe("a refused order's key", () => {
  it("answers the first 409 out_of_stock again after stock comes back, word for word, and reserves nothing", async () => {
    const { id: productId } = await createProduct(app, { stock: 2, price: 1000, maxUnitsPerUser: 10 });
    const first = await order("short-buyer", productId, 3, "order-short-1");
    const problem = expectProblem(first, 409, "out_of_stock", "items");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();

    expect((await patchProduct(app, productId, { stockAdded: 10 })).statusCode).toBe(200);
    const queued = await totalStreamLength(app);
    const retry = await order("short-buyer", productId, 3, "order-short-1");
    expect(retry.statusCode).toBe(409);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(sameProblem(retry.json())).toEqual(sameProblem(problem));
    expect(await totalStreamLength(app)).toBe(queued);
    expect(await app.redis.hget(app.queueKeys.productState(productId), "available")).toBe("12");

    // A new key is a new attempt, and the stock is there now.
    const fresh = await order("short-buyer", productId, 3, "order-short-2");
    expect(fresh.statusCode, fresh.body).toBe(202);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("answers the first 409 unit_limit_exceeded again after the user's units are released", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, price: 1000 });
    const held = await order("capped-buyer", productId, 4, "cap-hold");
    expect(held.statusCode).toBe(202);
    const refused = expectProblem(
      await order("capped-buyer", productId, 1, "cap-over"),
      409,
      "unit_limit_exceeded",
      "items",
    );
    // As if the first order ended: its units no longer count against the cap.
    await app.redis.del(app.queueKeys.unpaidUnits(productId, "capped-buyer"));
    const retry = await order("capped-buyer", productId, 1, "cap-over");
    expect(retry.statusCode).toBe(409);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(sameProblem(retry.json())).toEqual(sameProblem(refused));
    expect((await order("capped-buyer", productId, 1, "cap-new")).statusCode).toBe(202);
  });

  it("answers 404 for an unknown product again, and 422 when the key comes back with another body", async () => {
    const first = await order("lost-buyer", "prd_0000000000000000000000000Z", 1, "unknown-1");
    const problem = expectProblem(first, 404, "not_found", "items.0.productId");
    const retry = await order("lost-buyer", "prd_0000000000000000000000000Z", 1, "unknown-1");
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(sameProblem(retry.json())).toEqual(sameProblem(problem));

    const { id: productId } = await createProduct(app, { stock: 5, price: 1000 });
    const reused = expectProblem(
      await order("lost-buyer", productId, 1, "unknown-1"),
      422,
      "idempotency_key_reused",
      "Idempotency-Key",
    );
    // The first request created no operation, so there is no existingId to name.
    expect(reused.existingId).toBeUndefined();
  });
});

describe("a coupon issue's key", () => {
  it("answers a retried accepted claim with its 202 and the same id, not 409 already_issued", async () => {
    const coupon = await createCoupon(app, { quantity: 5 });
    const first = await claim(coupon.id, "claimer", "claim-1");
    expect(first.statusCode, first.body).toBe(202);
    const retry = await claim(coupon.id, "claimer", "claim-1");
    expect(retry.statusCode).toBe(202);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers.location).toBe(first.headers.location);
    // Without a key, a second claim is still the one-per-user refusal naming the first issue.
    const again = expectProblem(await claim(coupon.id, "claimer"), 409, "already_issued", "userId");
    expect(again.existingId).toBe(first.json().id);
  });

  it("answers a retried sold-out claim with the first 410, marked as replayed", async () => {
    const coupon = await createCoupon(app, { quantity: 1 });
    expect((await claim(coupon.id, "early-bird")).statusCode).toBe(202);
    const first = await claim(coupon.id, "late-bird", "late-1");
    const problem = expectProblem(first, 410, "sold_out");
    const retry = await claim(coupon.id, "late-bird", "late-1");
    expect(retry.statusCode).toBe(410);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(sameProblem(retry.json())).toEqual(sameProblem(problem));
  });
});

describe("what is not remembered", () => {
  it("runs a rate-limited request again on retry: the 429 never ran", async () => {
    expect(
      (await post(app, "/v1/payments", { userId: "limited", amount: 100 }, { "idempotency-key": "a" }))
        .statusCode,
    ).toBe(202);
    const limited = await post(
      app,
      "/v1/payments",
      { userId: "limited", amount: 100 },
      { "idempotency-key": "b" },
    );
    expectProblem(limited, 429, "rate_limited");
    // The retry is limited again (the bucket is still empty), not answered from a record.
    const retry = await post(
      app,
      "/v1/payments",
      { userId: "limited", amount: 100 },
      { "idempotency-key": "b" },
    );
    expect(retry.statusCode).toBe(429);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(
      await app.redis.exists(
        app.queueKeys.idempotency(app.queueKeys.partitionForUser("limited"), "limited", "b"),
      ),
    ).toBe(0);
  });
});

describe("the cost", () => {
  // On a Redis Cluster the item's and the user's slots differ (two-step-request.ts): a first keyed refusal sends
  // admit + reserve + the refusal's record (3), its replay admit + reserve (2), an accepted claim admit + reserve +
  // commit + the reservation's ZREM (4), its replay admit + reserve (2). Still one round trip for every replay.
  const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
  it(`stays ${onCluster ? "3, 2, 4 and 2" : "one"} Redis command${onCluster ? "s" : ""} per request: a first refusal, its replay, an accepted claim and its replayed 202`, async () => {
    const { id: productId } = await createProduct(app, { stock: 1, price: 1000 });
    const coupon = await createCoupon(app, { quantity: 5 });
    const before = await redisCommands();
    expect((await order("counted", productId, 2, "cost-1")).statusCode).toBe(409);
    expect((await order("counted", productId, 2, "cost-1")).statusCode).toBe(409);
    expect((await claim(coupon.id, "counted", "cost-2")).statusCode).toBe(202);
    expect((await claim(coupon.id, "counted", "cost-2")).statusCode).toBe(202);
    expect((await redisCommands()) - before).toBe(onCluster ? 3 + 2 + 4 + 2 : 4);
  });
});
