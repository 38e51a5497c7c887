// Every route × every kind of caller, through the real intake on the real Redis and Postgres: nobody (401),
// the shop's server key (acts for anyone it names), a shopper's customer token (acts only for itself; another
// user's things are 404, naming another user is 403), the admin key (configuration only) and tokens that must
// never pass (forged, expired, another audience or issuer, alg none).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { SignJWT } from "jose";
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
let alice: string;
let bob: string;
const server = () => ({ authorization: `Bearer ${env.serverKey}` });
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const nobody = { authorization: "" };

beforeAll(async () => {
  env = await createTestEnvironment("auth-callers", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  alice = (await app.auth.customerTokens.mint("alice", 900)).token;
  bob = (await app.auth.customerTokens.mint("bob", 900)).token;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const accepted = async (response: Awaited<ReturnType<typeof post>>) => {
  expect(response.statusCode, response.body).toBe(202);
  return response.json().id as string;
};

describe("without credentials", () => {
  it.each([
    ["POST", "/v1/payments", { userId: "alice", amount: 100 }],
    ["POST", "/v1/wallets/alice/deposits", { amount: 100 }],
    ["GET", "/v1/wallets/alice", undefined],
    ["GET", "/v1/users/alice/coupons", undefined],
    ["POST", "/v1/orders", { userId: "alice", items: [{ productId: `prd_${"0".repeat(26)}`, quantity: 1 }] }],
    ["POST", "/v1/customer-sessions", { userId: "alice" }],
    ["POST", "/v1/coupons/cpn_00000000000000000000000000/issues", { userId: "alice" }],
    ["POST", "/v1/rooms/drop/tickets", { userId: "alice" }],
  ])("%s %s is 401 with a Bearer challenge, and nothing is enqueued", async (method, url, body) => {
    const before = await totalStreamLength(app);
    const response = await documentedInject(app, { method: method as "GET" | "POST", url, payload: body });
    expectProblem(response, 401, "unauthorized", "Authorization");
    expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="floodgate"/);
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("health, readiness, metrics and the public catalogue stay open", async () => {
    const product = await createProduct(app);
    for (const url of ["/healthz", "/metrics", `/v1/catalog/products/${product.id}`]) {
      const response = await documentedInject(app, { method: "GET", url });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    }
    expect([200, 503]).toContain((await documentedInject(app, { method: "GET", url: "/readyz" })).statusCode);
  });
});

describe("payments and wallets", () => {
  it("a server key deposits and pays for the user it names, and must name one", async () => {
    await accepted(await post(app, "/v1/wallets/alice/deposits", { amount: 5_000 }, server()));
    await accepted(await post(app, "/v1/payments", { userId: "alice", amount: 100 }, server()));
    const missing = await post(app, "/v1/payments", { amount: 100 }, server());
    expectProblem(missing, 400, "validation_error", "userId");
  });

  it("a shopper pays as itself, with or without naming itself, and never as another user", async () => {
    const paid = await accepted(await post(app, "/v1/payments", { amount: 100 }, as(alice)));
    expect((await get(app, `/v1/payments/${paid}`, as(alice))).json().userId).toBe("alice");
    await accepted(await post(app, "/v1/payments", { userId: "alice", amount: 100 }, as(alice)));
    const before = await totalStreamLength(app);
    const forged = await post(app, "/v1/payments", { userId: "alice", amount: 100 }, as(bob));
    expectProblem(forged, 403, "forbidden_user", "userId");
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("a shopper cannot deposit, even into its own wallet", async () => {
    const before = await totalStreamLength(app);
    for (const user of ["alice", "bob"]) {
      const response = await post(app, `/v1/wallets/${user}/deposits`, { amount: 1_000_000 }, as(alice));
      expectProblem(response, 403, "forbidden_caller");
    }
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("a shopper reads only its own wallet and operations; another's are 404, as unknown ones are", async () => {
    expect((await get(app, "/v1/wallets/alice", as(alice))).statusCode).toBe(200);
    expectProblem(await get(app, "/v1/wallets/alice", as(bob)), 404, "not_found", "userId");
    expect((await get(app, "/v1/wallets/alice", server())).statusCode).toBe(200);
    const payment = await accepted(await post(app, "/v1/payments", { amount: 100 }, as(alice)));
    const deposit = await accepted(await post(app, "/v1/wallets/alice/deposits", { amount: 100 }, server()));
    expectProblem(await get(app, `/v1/payments/${payment}`, as(bob)), 404, "not_found", "id");
    expectProblem(await get(app, `/v1/deposits/${deposit}`, as(bob)), 404, "not_found", "id");
    expect((await get(app, `/v1/deposits/${deposit}`, as(alice))).statusCode).toBe(200);
    expect((await get(app, `/v1/payments/${payment}`, server())).statusCode).toBe(200);
  });

  it("the admin key configures but moves no money and reads no wallet", async () => {
    expectProblem(
      await post(app, "/v1/payments", { userId: "alice", amount: 1 }, adminHeaders()),
      403,
      "forbidden_caller",
    );
    expectProblem(
      await get(app, "/v1/wallets/alice", adminHeaders()),
      403,
      "forbidden_caller",
      "Authorization",
    );
  });
});

describe("coupons, orders and rooms", () => {
  it("a shopper claims a coupon as itself only, and sees only its own issues and coupon list", async () => {
    const coupon = await createCoupon(app, { quantity: 10 });
    const forged = await post(app, `/v1/coupons/${coupon.id}/issues`, { userId: "alice" }, as(bob));
    expectProblem(forged, 403, "forbidden_user", "userId");
    const issued = await accepted(await post(app, `/v1/coupons/${coupon.id}/issues`, {}, as(alice)));
    expect((await get(app, `/v1/coupon-issues/${issued}`, as(alice))).json().userId).toBe("alice");
    expectProblem(await get(app, `/v1/coupon-issues/${issued}`, as(bob)), 404, "not_found", "id");
    expect((await get(app, "/v1/users/alice/coupons", as(alice))).statusCode).toBe(200);
    expectProblem(await get(app, "/v1/users/alice/coupons", as(bob)), 404, "not_found", "userId");
    const serverIssue = await post(app, `/v1/coupons/${coupon.id}/issues`, {}, server());
    expectProblem(serverIssue, 400, "validation_error", "userId");
  });

  it("a shopper orders, reads and cancels only its own orders", async () => {
    const product = await createProduct(app, { stock: 10 });
    const items = [{ productId: product.id, quantity: 1 }];
    expectProblem(
      await post(app, "/v1/orders", { userId: "alice", items }, as(bob)),
      403,
      "forbidden_user",
      "userId",
    );
    const order = await accepted(await post(app, "/v1/orders", { items }, as(alice)));
    expectProblem(await get(app, `/v1/orders/${order}`, as(bob)), 404, "not_found", "orderId");
    expectProblem(await post(app, `/v1/orders/${order}/cancel`, {}, as(bob)), 404, "not_found", "orderId");
    expect((await post(app, `/v1/orders/${order}/cancel`, {}, as(alice))).statusCode).toBe(202);
  });

  it("a room ticket is bound to the verified user: no joining or polling as someone else", async () => {
    const put = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/drop",
      headers: adminHeaders(),
      payload: { mode: "on", admitPerSecond: 5, sessionSeconds: 60, guards: ["orders"] },
    });
    expect(put.statusCode, put.body).toBe(201);
    await app.admission.refresh();
    expectProblem(
      await post(app, "/v1/rooms/drop/tickets", { userId: "alice" }, as(bob)),
      403,
      "forbidden_user",
      "userId",
    );
    const joined = await post(app, "/v1/rooms/drop/tickets", {}, as(alice));
    expect([200, 201]).toContain(joined.statusCode);
    const { ticketId } = joined.json();
    expect((await get(app, `/v1/rooms/drop/tickets/${ticketId}`, as(alice))).statusCode).toBe(200);
    expectProblem(
      await get(app, `/v1/rooms/drop/tickets/${ticketId}`, as(bob)),
      404,
      "not_found",
      "ticketId",
    );
  });
});

describe("customer sessions and server keys", () => {
  it("only a server key mints customer tokens, and the token acts for its user", async () => {
    const minted = await post(app, "/v1/customer-sessions", { userId: "carol", ttlSeconds: 120 }, server());
    expect(minted.statusCode, minted.body).toBe(201);
    const { token, userId, expiresAt } = minted.json();
    expect(userId).toBe("carol");
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    expect((await get(app, "/v1/wallets/carol", as(token))).json().userId).toBe("carol");
    expectProblem(
      await post(app, "/v1/customer-sessions", { userId: "carol" }, as(alice)),
      403,
      "forbidden_caller",
    );
    expectProblem(
      await post(app, "/v1/customer-sessions", { userId: "carol" }, adminHeaders()),
      403,
      "forbidden_caller",
    );
    expectProblem(
      await post(app, "/v1/customer-sessions", { userId: "a b" }, server()),
      400,
      "validation_error",
      "userId",
    );
  });

  it("the admin creates (shown once), lists and revokes server keys; nobody else may", async () => {
    const created = await post(app, "/v1/api-keys", { name: "checkout server" }, adminHeaders());
    expect(created.statusCode, created.body).toBe(201);
    const { id, key } = created.json();
    expect(key).toMatch(/^fg_sk_/);
    await accepted(await post(app, "/v1/wallets/dora/deposits", { amount: 10 }, as(key)));
    const list = (await get(app, "/v1/api-keys", adminHeaders())).json();
    const listed = list.data.find((entry: { id: string }) => entry.id === id);
    expect(listed).toMatchObject({ id, name: "checkout server", revokedAt: null });
    expect(JSON.stringify(list)).not.toContain(key);
    for (const headers of [server(), as(alice), nobody]) {
      expect((await post(app, "/v1/api-keys", { name: "x" }, headers)).statusCode).toBe(401);
      expect((await get(app, "/v1/api-keys", headers)).statusCode).toBe(401);
    }
    const revoked = await documentedInject(app, {
      method: "DELETE",
      url: `/v1/api-keys/${id}`,
      headers: adminHeaders(),
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revokedAt).not.toBeNull();
    const refused = await post(app, "/v1/wallets/dora/deposits", { amount: 10 }, as(key));
    expectProblem(refused, 401, "unauthorized", "Authorization");
    expect(
      (
        await documentedInject(app, {
          method: "DELETE",
          url: "/v1/api-keys/zzzzzzzzzzzz",
          headers: adminHeaders(),
        })
      ).statusCode,
    ).toBe(404);
  });

  it("revokes a server key sent with Content-Type: application/json and no body, as many clients send it", async () => {
    const { id } = (await post(app, "/v1/api-keys", { name: "json everywhere" }, adminHeaders())).json();
    const revoked = await documentedInject(app, {
      method: "DELETE",
      url: `/v1/api-keys/${id}`,
      headers: { ...adminHeaders(), "content-type": "application/json" },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revokedAt).not.toBeNull();
  });
});

describe("tokens that must never pass", () => {
  const secret = () => new TextEncoder().encode(env.config.customerTokenSecret!);
  const signed = (claims: { iss?: string; aud?: string; sub?: string }, key = secret()) =>
    new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(claims.iss ?? "floodgate")
      .setAudience(claims.aud ?? "floodgate:customer")
      .setSubject(claims.sub ?? "alice")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(key);
  const unsecured = () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    return `${part({ alg: "none", typ: "JWT" })}.${part({ iss: "floodgate", aud: "floodgate:customer", sub: "alice", iat: now, exp: now + 600 })}.`;
  };

  it("a well-formed token of our own passes (the control case)", async () => {
    expect((await get(app, "/v1/wallets/alice", as(await signed({})))).statusCode).toBe(200);
  });

  it.each([
    ["forged (another secret)", () => signed({}, new TextEncoder().encode("x".repeat(40)))],
    ["for another audience", () => signed({ aud: "someone-else" })],
    ["from another issuer", () => signed({ iss: "https://evil.example" })],
    ["alg none", async () => unsecured()],
    ["not a JWT", async () => "definitely-not-a-token"],
    ["a made-up server key", async () => `fg_sk_abcdefghijkm_${"A".repeat(43)}`],
  ])("%s is 401, and nothing is enqueued", async (_what, token) => {
    const before = await totalStreamLength(app);
    const response = await post(app, "/v1/payments", { amount: 100 }, as(await token()));
    expect(response.statusCode, response.body).toBe(401);
    expect(["invalid_token", "unauthorized"]).toContain(response.json().code);
    expect(response.headers["www-authenticate"]).toMatch(/error="invalid_token"/);
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("an expired token is 401 token_expired, which a client answers by getting a new one", async () => {
    const expired = await app.auth.customerTokens.mint("alice", 60, Date.now() - 3_600_000);
    const response = await post(app, "/v1/payments", { amount: 100 }, as(expired.token));
    expectProblem(response, 401, "token_expired", "Authorization");
    expect(response.json().retryable).toBe(true);
  });
});

describe("a token verified before (the request hook's lookup of the whole header)", () => {
  it("is accepted however the header spells Bearer, and one character more or less is a different token", async () => {
    const { token } = await app.auth.customerTokens.mint("alice", 900);
    expect((await get(app, "/v1/wallets/alice", as(token))).statusCode).toBe(200);
    for (const authorization of [`bearer ${token}`, `Bearer   ${token}`, `BEARER ${token}  `]) {
      expect((await get(app, "/v1/wallets/alice", { authorization })).statusCode, authorization).toBe(200);
    }
    for (const changed of [`${token}x`, token.slice(0, -1), `x${token}`]) {
      const response = await post(app, "/v1/payments", { amount: 100 }, as(changed));
      expect(response.statusCode, changed).toBe(401);
    }
  });

  it("is refused as token_expired once it expires, although it was accepted before", async () => {
    // Expires 4-5 s from now (JWT expiry is in whole seconds), room enough for the first request on a busy
    // machine: accepted first, then refused once its second has come (polled, at least 20 s before giving up).
    const minted = await app.auth.customerTokens.mint("alice", 5);
    expect((await get(app, "/v1/wallets/alice", as(minted.token))).statusCode).toBe(200);
    const refused = await waitUntil(
      () => get(app, "/v1/wallets/alice", as(minted.token)),
      (response) => response.statusCode !== 200,
      "the remembered token to expire",
      400,
    );
    expectProblem(refused, 401, "token_expired", "Authorization");
  });
});

describe("rate limits and tickets key on the verified user", () => {
  it("another shopper's requests cannot spend alice's per-user budget", async () => {
    const limited = await createTestEnvironment("auth-limits", {
      env: { RATE_LIMITS: "payments.user=1/s:2" },
    });
    const limitedApp = await buildApp(limited.config, { logger: false });
    try {
      await limitedApp.ready();
      const mallory = (await limitedApp.auth.customerTokens.mint("mallory", 900)).token;
      const victim = (await limitedApp.auth.customerTokens.mint("alice", 900)).token;
      for (let i = 0; i < 10; i++) {
        const response = await post(limitedApp, "/v1/payments", { userId: "alice", amount: 1 }, as(mallory));
        expect(response.statusCode).toBe(403);
      }
      const own = await post(limitedApp, "/v1/payments", { amount: 1 }, as(victim));
      expect(own.statusCode, own.body).toBe(202);
    } finally {
      await limitedApp.close();
      await limited.cleanup();
    }
  });
});
