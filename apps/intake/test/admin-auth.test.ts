// Admin routes take `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time; anything else is a
// 401 that writes nothing. Without a configured key they answer 503 admin_disabled.
import crypto from "node:crypto";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  ADMIN_ENV,
  ADMIN_KEY,
  adminHeaders,
  couponBody,
  createCoupon,
  expectRedisStateMatchesDefinitions,
  issue,
} from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
/** The same deployment, with no ADMIN_API_KEY configured. */
let keyless: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("admin-auth", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  keyless = await buildApp({ ...env.config, adminApiKey: null }, { logger: false });
  await Promise.all([app.ready(), keyless.ready()]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await keyless?.close();
  await app?.close();
  await env?.cleanup();
});

const couponRows = async () =>
  Number(
    (
      await app.globalDb
        .selectFrom("coupons")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** POST /v1/coupons with exactly these headers (the test kit's `post` would add the server key). */
const createAs = (target: FastifyInstance, headers: Record<string, string>, body: unknown = couponBody()) =>
  documentedInject(target, { method: "POST", url: "/v1/coupons", headers, payload: body as object });

const wrongKeys: [string, Record<string, string>][] = [
  ["no Authorization header", {}],
  ["an empty Authorization header", { authorization: "" }],
  ["the Basic scheme", { authorization: `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString("base64")}` }],
  ["Bearer without a key", { authorization: "Bearer" }],
  ["Bearer and spaces", { authorization: "Bearer    " }],
  ["the key without the scheme", { authorization: ADMIN_KEY }],
  ["a shorter key", adminHeaders(ADMIN_KEY.slice(0, -1))],
  ["a longer key", adminHeaders(`${ADMIN_KEY}0`)],
  ["a key of the same length", adminHeaders(`${ADMIN_KEY.slice(0, -1)}X`)],
  ["the key in upper case", adminHeaders(ADMIN_KEY.toUpperCase())],
  ["two keys", { authorization: `Bearer ${ADMIN_KEY} ${ADMIN_KEY}` }],
];

describe("POST /v1/coupons authentication", () => {
  it("creates a coupon with the right key (the scheme is case-insensitive)", async () => {
    const created = await post(app, "/v1/coupons", couponBody(), adminHeaders());
    expect(created.statusCode, created.body).toBe(201);
    const lower = await post(app, "/v1/coupons", couponBody(), { authorization: `bearer ${ADMIN_KEY}` });
    expect(lower.statusCode, lower.body).toBe(201);
  });

  it.each(wrongKeys)("answers 401 with WWW-Authenticate for %s, and writes nothing", async (_, headers) => {
    const rows = await couponRows();
    const response = await createAs(app, headers);
    expectProblem(response, 401, "unauthorized", "Authorization");
    expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="floodgate-admin"/);
    expect(await couponRows()).toBe(rows);
  });

  it("says invalid_token when a key was given but is wrong", async () => {
    const response = await post(app, "/v1/coupons", couponBody(), adminHeaders("not-the-admin-key-at-all"));
    expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("answers 401 before looking at the body", async () => {
    const response = await post(
      app,
      "/v1/coupons",
      { quantity: "lots" },
      adminHeaders("wrong-key-wrong-key"),
    );
    expectProblem(response, 401, "unauthorized", "Authorization");
  });

  it("protects GET /v1/coupons/:couponId too, without saying whether the coupon exists", async () => {
    const { id } = await createCoupon(app);
    expectProblem(await get(app, `/v1/coupons/${id}`, { authorization: "" }), 401, "unauthorized");
    // The shop's server key is no admin key either.
    expectProblem(await get(app, `/v1/coupons/${id}`), 401, "unauthorized");
    const unknown = await documentedInject(app, {
      method: "GET",
      url: "/v1/coupons/cpn_00000000000000000000000000",
      headers: adminHeaders("wrong-key-wrong-key"),
    });
    expectProblem(unknown, 401, "unauthorized");
  });

  // Identity (issue 17): issuing takes a caller (the shop's server key or the shopper's customer token), but
  // never the admin key.
  it("leaves issuing to callers: no admin key needed to ask for a coupon", async () => {
    const { id } = await createCoupon(app);
    expect((await issue(app, id, "public-user")).statusCode).toBe(202);
  });
});

describe("the key comparison", () => {
  it("goes through crypto.timingSafeEqual on two 32-byte digests, whatever the length presented", async () => {
    const compare = vi.spyOn(crypto, "timingSafeEqual");
    for (const key of ["short-but-wrong!", `${ADMIN_KEY}-much-longer-than-the-real-key`, ADMIN_KEY]) {
      compare.mockClear();
      await post(app, "/v1/coupons", couponBody(), adminHeaders(key));
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0]! as [Buffer, Buffer];
      expect([a.length, b.length]).toEqual([32, 32]);
    }
    expect(compare.mock.results[0]!.value).toBe(true);
  });
});

describe("without ADMIN_API_KEY", () => {
  it("answers 503 admin_disabled on the admin routes, whatever key is sent, and writes nothing", async () => {
    const rows = await couponRows();
    for (const headers of [{}, adminHeaders()]) {
      const created = await createAs(keyless, headers);
      const body = expectProblem(created, 503, "admin_disabled");
      expect(body.retryable).toBe(false);
      expect(String(body.detail)).toContain("ADMIN_API_KEY");
      const read = await documentedInject(keyless, {
        method: "GET",
        url: "/v1/coupons/cpn_00000000000000000000000000",
        headers,
      });
      expectProblem(read, 503, "admin_disabled");
    }
    expect(await couponRows()).toBe(rows);
  });

  it("still issues coupons (issuing needs no admin key)", async () => {
    const { id } = await createCoupon(app);
    expect((await issue(keyless, id, "keyless-user")).statusCode).toBe(202);
  });
});

describe("after every refusal above", () => {
  it("Redis holds coupon state for exactly the coupons Postgres defines", async () => {
    await expectRedisStateMatchesDefinitions(app);
  });
});
