// POST /v1/coupons and GET /v1/coupons/:couponId: a definition in the global database, its issue state in
// Redis, validation as strict as payments (a bad field is a 400 naming it, and nothing is written).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  ADMIN_ENV,
  adminHeaders,
  couponBody,
  createCoupon,
  expectRedisStateMatchesDefinitions,
} from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, metricValue, post } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("coupons-admin", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const adminGet = (target: FastifyInstance, url: string) =>
  documentedInject(target, { method: "GET", url, headers: adminHeaders() });
const couponRows = () => app.globalDb.selectFrom("coupons").selectAll().execute();
const loads = async (target: FastifyInstance) =>
  metricValue(
    (await documentedInject(target, { method: "GET", url: "/metrics" })).body,
    "floodgate_coupon_definition_loads_total",
  );

describe("POST /v1/coupons", () => {
  it("answers 201 + Location with the definition, and stores it in Postgres and its state in Redis", async () => {
    const body = {
      name: "Payday 5,000 off",
      quantity: 1000,
      startsAt: "2026-11-25T10:00:00+09:00",
      endsAt: "2026-11-25T11:00:00.500+09:00",
      discount: { type: "fixed", value: 5000 },
    };
    const response = await post(app, "/v1/coupons", body, adminHeaders());
    expect(response.statusCode, response.body).toBe(201);
    const coupon = response.json();
    expect(coupon).toEqual({
      id: expect.stringMatching(/^cpn_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "Payday 5,000 off",
      quantity: 1000,
      startsAt: "2026-11-25T01:00:00.000Z",
      endsAt: "2026-11-25T02:00:00.500Z",
      discount: { type: "fixed", value: 5000 },
      createdAt: expect.any(String),
    });
    expect(response.headers.location).toBe(`/v1/coupons/${coupon.id}`);

    const row = await app.globalDb
      .selectFrom("coupons")
      .selectAll()
      .where("id", "=", coupon.id)
      .executeTakeFirst();
    expect(row).toMatchObject({
      name: "Payday 5,000 off",
      quantity: 1000,
      discount_type: "fixed",
      discount_value: 5000,
    });
    expect(row!.starts_at!.toISOString()).toBe(coupon.startsAt);
    expect(row!.ends_at!.toISOString()).toBe(coupon.endsAt);
    expect(row!.created_at.toISOString()).toBe(coupon.createdAt);

    expect(await app.redis.hgetall(app.queueKeys.couponState(coupon.id))).toEqual({
      quantity: "1000",
      startsAt: String(Date.parse(coupon.startsAt)),
      endsAt: String(Date.parse(coupon.endsAt)),
      issued: "0",
    });
  });

  it("takes a coupon without a window (open from now, until sold out)", async () => {
    const coupon = await createCoupon(app, { quantity: 3 });
    expect(coupon).toMatchObject({ startsAt: null, endsAt: null, quantity: 3 });
    expect(await app.redis.hgetall(app.queueKeys.couponState(coupon.id))).toEqual({
      quantity: "3",
      startsAt: "",
      endsAt: "",
      issued: "0",
    });
  });

  it.each([
    ["quantity 10^7", { quantity: 10_000_000 }],
    ["quantity 1", { quantity: 1 }],
    ["100 percent", { discount: { type: "percent", value: 100 } }],
    ["1 percent", { discount: { type: "percent", value: 1 } }],
    ["a fixed 10^12", { discount: { type: "fixed", value: 1_000_000_000_000 } }],
    ["a fixed 1", { discount: { type: "fixed", value: 1 } }],
    ["only an end", { endsAt: "2030-01-01T00:00:00Z" }],
    ["a 200-character name", { name: "n".repeat(200) }],
    ["Feb 29 of a leap year", { startsAt: "2028-02-29T00:00:00Z" }],
  ])("accepts the edge: %s", async (_, changes) => {
    const response = await post(app, "/v1/coupons", { ...couponBody(), ...changes }, adminHeaders());
    expect(response.statusCode, response.body).toBe(201);
  });

  const bad: [string, unknown, string][] = [
    ["no body fields", {}, "name"],
    ["a missing name", { ...couponBody(), name: undefined }, "name"],
    ["an empty name", couponBody({ name: "" }), "name"],
    ["a 201-character name", couponBody({ name: "n".repeat(201) }), "name"],
    ["a name with a newline", couponBody({ name: "a\nb" }), "name"],
    ["a missing quantity", { ...couponBody(), quantity: undefined }, "quantity"],
    ["quantity 0", couponBody({ quantity: 0 }), "quantity"],
    ["quantity -1", couponBody({ quantity: -1 }), "quantity"],
    ["quantity over 10^7", couponBody({ quantity: 10_000_001 }), "quantity"],
    ["quantity 1.5", couponBody({ quantity: 1.5 }), "quantity"],
    ["quantity as a string", { ...couponBody(), quantity: "100" }, "quantity"],
    ["a missing discount", { ...couponBody(), discount: undefined }, "discount"],
    [
      "a discount of another type",
      { ...couponBody(), discount: { type: "bogo", value: 1 } },
      "discount.type",
    ],
    ["a discount value of 0", couponBody({ discount: { type: "fixed", value: 0 } }), "discount.value"],
    ["a fractional discount", couponBody({ discount: { type: "fixed", value: 9.5 } }), "discount.value"],
    [
      "a discount value as a string",
      { ...couponBody(), discount: { type: "fixed", value: "5" } },
      "discount.value",
    ],
    ["101 percent", couponBody({ discount: { type: "percent", value: 101 } }), "discount.value"],
    [
      "a fixed discount over 10^12",
      couponBody({ discount: { type: "fixed", value: 10 ** 12 + 1 } }),
      "discount.value",
    ],
    ["startsAt in words", couponBody({ startsAt: "tomorrow" }), "startsAt"],
    ["startsAt without an offset", couponBody({ startsAt: "2026-11-25T10:00:00" }), "startsAt"],
    ["startsAt as a number", { ...couponBody(), startsAt: 1_764_000_000_000 }, "startsAt"],
    ["startsAt on Feb 30", couponBody({ startsAt: "2026-02-30T00:00:00Z" }), "startsAt"],
    ["startsAt at 24:00", couponBody({ startsAt: "2026-02-10T24:00:00Z" }), "startsAt"],
    ["endsAt in month 13", couponBody({ endsAt: "2026-13-01T00:00:00Z" }), "endsAt"],
    [
      "endsAt equal to startsAt",
      couponBody({ startsAt: "2030-01-01T00:00:00Z", endsAt: "2030-01-01T09:00:00+09:00" }),
      "endsAt",
    ],
    [
      "endsAt before startsAt",
      couponBody({ startsAt: "2030-01-02T00:00:00Z", endsAt: "2030-01-01T00:00:00Z" }),
      "endsAt",
    ],
    ["an unknown field", { ...couponBody(), issued: 5 }, "issued"],
    ["a JSON array", [couponBody()], "body"],
  ];

  it.each(bad)("refuses %s with a 400 naming the field, and writes nothing", async (_, body, field) => {
    const rows = await couponRows();
    expectProblem(await post(app, "/v1/coupons", body, adminHeaders()), 400, "validation_error", field);
    expect(await couponRows()).toEqual(rows);
  });

  it("refuses malformed JSON and other content types like the payment routes do", async () => {
    const malformed = await documentedInject(app, {
      method: "POST",
      url: "/v1/coupons",
      headers: { ...adminHeaders(), "content-type": "application/json" },
      payload: '{"name": ',
    });
    expectProblem(malformed, 400, "malformed_json", "body");
    const text = await documentedInject(app, {
      method: "POST",
      url: "/v1/coupons",
      headers: { ...adminHeaders(), "content-type": "text/plain" },
      payload: JSON.stringify(couponBody()),
    });
    expectProblem(text, 415, "unsupported_media_type", "Content-Type");
  });
});

describe("after every refused create above", () => {
  it("Redis holds coupon state for exactly the coupons Postgres defines", async () => {
    await expectRedisStateMatchesDefinitions(app);
  });
});

describe("GET /v1/coupons/:couponId", () => {
  it("answers the definition with issued and remaining", async () => {
    const coupon = await createCoupon(app, { quantity: 7, endsAt: "2031-01-01T00:00:00Z" });
    const response = await adminGet(app, `/v1/coupons/${coupon.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ...coupon, issued: 0, remaining: 7 });
    await app.redis.hset(app.queueKeys.couponState(coupon.id), "issued", 3);
    expect((await adminGet(app, `/v1/coupons/${coupon.id}`)).json()).toMatchObject({
      issued: 3,
      remaining: 4,
    });
  });

  it("answers 404 for an unknown coupon and 400 for a malformed id", async () => {
    expectProblem(
      await adminGet(app, "/v1/coupons/cpn_00000000000000000000000000"),
      404,
      "not_found",
      "couponId",
    );
    expectProblem(
      await adminGet(app, "/v1/coupons/pay_01M80JPZKW9CHTKTTMJT7FAZ06"),
      400,
      "validation_error",
      "couponId",
    );
    expectProblem(await adminGet(app, "/v1/coupons/nope"), 400, "validation_error", "couponId");
  });

  it("reads a definition from Postgres once per process, then from memory", async () => {
    const coupon = await createCoupon(app);
    // The creating process knows it already.
    const before = await loads(app);
    await adminGet(app, `/v1/coupons/${coupon.id}`);
    expect(await loads(app)).toBe(before);

    // Another intake process of the same deployment loads it once, however many ask at the same time.
    const other = await buildApp(env.config, { logger: false });
    try {
      await other.ready();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => adminGet(other, `/v1/coupons/${coupon.id}`)),
      );
      expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
      expect(answers[0]!.json()).toMatchObject({ id: coupon.id, name: coupon.name });
      expect(await loads(other)).toBe(1);
      await adminGet(other, `/v1/coupons/${coupon.id}`);
      expect(await loads(other)).toBe(1);
    } finally {
      await other.close();
    }
  });
});
