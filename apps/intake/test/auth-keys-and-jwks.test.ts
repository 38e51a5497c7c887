// What crosses processes and parties: a server key revoked on one intake process is refused by the others
// within a second (pub/sub), the shop's own JWTs are verified from its JWKS (a key rotation picked up), a PEM
// or a shared secret, and a WebSocket takes its credential in ?access_token= and refuses on the socket.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { openJsonSocket } from "./support/json-socket.ts";

const SHOP_ISSUER = "https://shop.example";
const SHOP_AUDIENCE = "floodgate";
const as = (token: string) => ({ authorization: `Bearer ${token}` });

let jwks: { keys: JWK[] } = { keys: [] };
let jwksServer: Server;
let jwksUrl: string;

beforeAll(async () => {
  jwksServer = createServer((_request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
});

type SigningKey = Parameters<SignJWT["sign"]>[0];

const shopToken = (privateKey: SigningKey, kid: string | undefined, alg: string, sub = "alice") =>
  new SignJWT({})
    .setProtectedHeader(kid === undefined ? { alg } : { alg, kid })
    .setIssuer(SHOP_ISSUER)
    .setAudience(SHOP_AUDIENCE)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(privateKey);

describe("a server key revoked on one intake process", () => {
  let env: TestEnvironment;
  let first: FastifyInstance;
  let second: FastifyInstance;

  beforeAll(async () => {
    env = await createTestEnvironment("auth-revoke", { env: { ADMIN_API_KEY: ADMIN_KEY } });
    [first, second] = await Promise.all([
      buildApp(env.config, { logger: false }),
      buildApp(env.config, { logger: false }),
    ]);
    await Promise.all([first.ready(), second.ready()]);
  });

  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await env?.cleanup();
  });

  it("is accepted by every process once created, and refused by every process within a second of its revocation", async () => {
    const created = (await post(first, "/v1/api-keys", { name: "shop" }, adminHeaders())).json();
    const deposit = (app: FastifyInstance) =>
      post(app, "/v1/wallets/erin/deposits", { amount: 1 }, as(created.key));
    // Within a second, polled every 50 ms: the promise is a bound, not a measurement.
    await waitUntil(
      () => deposit(second).then((r) => r.statusCode),
      (status) => status === 202,
      "the key on the second process",
      20,
    );
    expect((await deposit(first)).statusCode).toBe(202);

    const revoked = await documentedInject(first, {
      method: "DELETE",
      url: `/v1/api-keys/${created.id}`,
      headers: adminHeaders(),
    });
    expect(revoked.statusCode).toBe(200);
    expectProblem(await deposit(first), 401, "unauthorized", "Authorization");
    await waitUntil(
      () => deposit(second).then((r) => r.statusCode),
      (status) => status === 401,
      "the revocation on the second process",
      20,
    );
  });

  it("is refused by a process started after the revocation (it loads the active keys at start)", async () => {
    const created = (await post(first, "/v1/api-keys", { name: "short-lived" }, adminHeaders())).json();
    await documentedInject(first, {
      method: "DELETE",
      url: `/v1/api-keys/${created.id}`,
      headers: adminHeaders(),
    });
    const third = await buildApp(env.config, { logger: false });
    try {
      await third.ready();
      expect(
        (await post(third, "/v1/payments", { userId: "erin", amount: 1 }, as(created.key))).statusCode,
      ).toBe(401);
      expect((await post(third, "/v1/payments", { userId: "erin", amount: 1 })).statusCode).toBe(202);
    } finally {
      await third.close();
    }
  });
});

describe("the shop's own customer JWTs", () => {
  it("are verified from its JWKS, and a rotated signing key is picked up", async () => {
    const one = await generateKeyPair("RS256");
    const two = await generateKeyPair("ES256");
    jwks = { keys: [{ ...(await exportJWK(one.publicKey)), kid: "one", alg: "RS256", use: "sig" }] };
    const env = await createTestEnvironment("auth-jwks", {
      shards: 1,
      env: {
        CUSTOMER_JWT_JWKS_URL: jwksUrl,
        CUSTOMER_JWT_ISSUER: SHOP_ISSUER,
        CUSTOMER_JWT_AUDIENCE: SHOP_AUDIENCE,
      },
    });
    const app = await buildApp(env.config, { logger: false });
    try {
      await app.ready();
      const first = await shopToken(one.privateKey, "one", "RS256");
      const wallet = await get(app, "/v1/wallets/alice", as(first));
      expect(wallet.statusCode, wallet.body).toBe(200);
      expectProblem(await get(app, "/v1/wallets/bob", as(first)), 404, "not_found", "userId");

      // The shop rotates: the new key is published and the old one withdrawn.
      jwks = { keys: [{ ...(await exportJWK(two.publicKey)), kid: "two", alg: "ES256", use: "sig" }] };
      const rotated = await shopToken(two.privateKey, "two", "ES256");
      // jose fetches the set again for an unknown kid at most once per cooldown (5 s): bounded, not timed.
      await waitUntil(
        () => get(app, "/v1/wallets/alice", as(rotated)).then((r) => r.statusCode),
        (status) => status === 200,
        "the rotated key to be accepted",
        200,
      );
      const wrongAudience = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "two" })
        .setIssuer(SHOP_ISSUER)
        .setAudience("another-service")
        .setSubject("alice")
        .setExpirationTime("10m")
        .sign(two.privateKey);
      expectProblem(
        await get(app, "/v1/wallets/alice", as(wrongAudience)),
        401,
        "invalid_token",
        "Authorization",
      );
    } finally {
      await app.close();
      await env.cleanup();
    }
  });

  it("are verified with a PEM public key, or with a shared secret", async () => {
    const pair = await generateKeyPair("RS256");
    const pemEnv = await createTestEnvironment("auth-pem", {
      shards: 1,
      env: {
        CUSTOMER_JWT_PUBLIC_KEY: await exportSPKI(pair.publicKey),
        CUSTOMER_JWT_ISSUER: SHOP_ISSUER,
        CUSTOMER_JWT_AUDIENCE: SHOP_AUDIENCE,
      },
    });
    const sharedSecret = "shop-shared-secret-".padEnd(40, "x");
    const secretEnv = await createTestEnvironment("auth-hs", {
      shards: 1,
      env: {
        CUSTOMER_JWT_SECRET: sharedSecret,
        CUSTOMER_JWT_ISSUER: SHOP_ISSUER,
        CUSTOMER_JWT_AUDIENCE: SHOP_AUDIENCE,
      },
    });
    const pemApp = await buildApp(pemEnv.config, { logger: false });
    const secretApp = await buildApp(secretEnv.config, { logger: false });
    try {
      await Promise.all([pemApp.ready(), secretApp.ready()]);
      const rsa = await shopToken(pair.privateKey, undefined, "RS256");
      expect((await get(pemApp, "/v1/wallets/alice", as(rsa))).statusCode).toBe(200);
      const hs = await shopToken(
        new TextEncoder().encode(sharedSecret) as unknown as SigningKey,
        undefined,
        "HS256",
      );
      expect((await get(secretApp, "/v1/wallets/alice", as(hs))).statusCode).toBe(200);
      // An HS256 token "signed" with the PEM text as its secret: the classic key-confusion forgery.
      const confused = await shopToken(
        new TextEncoder().encode(await exportSPKI(pair.publicKey)) as unknown as SigningKey,
        undefined,
        "HS256",
      );
      expectProblem(
        await get(pemApp, "/v1/wallets/alice", as(confused)),
        401,
        "invalid_token",
        "Authorization",
      );
      // Floodgate's own tokens still work beside the shop's.
      const own = (await pemApp.auth.customerTokens.mint("alice", 900)).token;
      expect((await get(pemApp, "/v1/wallets/alice", as(own))).statusCode).toBe(200);
    } finally {
      await Promise.all([pemApp.close(), secretApp.close()]);
      await Promise.all([pemEnv.cleanup(), secretEnv.cleanup()]);
    }
  });
});

describe("WebSockets", () => {
  let env: TestEnvironment;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    env = await createTestEnvironment("auth-sockets", { shards: 1 });
    app = await buildApp(env.config, { logger: false });
    await app.listen({ port: 0, host: "127.0.0.1" });
    base = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
  });

  type Message = { type: string; code?: string; operation?: { userId: string } };

  it("an operation's socket needs a credential, shows a shopper only its own operation, and takes ?access_token=", async () => {
    const alice = (await app.auth.customerTokens.mint("alice", 900)).token;
    const bob = (await app.auth.customerTokens.mint("bob", 900)).token;
    const paid = await post(app, "/v1/payments", { amount: 100 }, as(alice));
    expect(paid.statusCode).toBe(202);
    const id = paid.json().id;

    const anonymous = await openJsonSocket<Message>(`${base}/v1/operations/${id}/ws`);
    expect((await anonymous.closed).code).toBe(4401);
    expect(anonymous.messages[0]).toMatchObject({ type: "error", code: "unauthorized" });

    const other = await openJsonSocket<Message>(`${base}/v1/operations/${id}/ws?access_token=${bob}`);
    expect((await other.closed).code).toBe(4404);

    const own = await openJsonSocket<Message>(`${base}/v1/operations/${id}/ws?access_token=${alice}`);
    const status = await own.next((message) => message.type === "status", "alice's status");
    expect(status.operation?.userId).toBe("alice");
    own.close();

    const shop = await openJsonSocket<Message>(
      `${base}/v1/operations/${id}/ws?access_token=${env.serverKey}`,
    );
    await shop.next((message) => message.type === "status", "the shop's status");
    shop.close();
  });
});
