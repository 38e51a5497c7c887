// ES256 admission tokens against the real intake, Redis and global database: the keys published at
// /.well-known/jwks.json (public parts only), a token verified with jose against the served set as a shop's server
// would, a foreign key refused, `./floodgate keys rotate` (old tokens keep working, new ones carry the new kid),
// two intakes on one global database signing with one key, keys from ADMISSION_SIGNING_KEYS, and HS256 still
// selectable.
import { Es256AdmissionTokens, Hs256AdmissionTokens } from "@floodgate/admission";
import { generateAdmissionSigningKey } from "@floodgate/auth";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import { expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { admittedToken, defineRoom, keysCommand, startWithDropRoom } from "./support/shop-gate-kit.ts";

const pay = (app: FastifyInstance, userId: string, token: string) =>
  post(app, "/v1/payments", { userId, amount: 100 }, { "admission-token": token });

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

describe("ES256 admission tokens (the default)", () => {
  let env: TestEnvironment;
  let first: FastifyInstance;
  let second: FastifyInstance;
  let jwksUrl: URL;

  beforeAll(async () => {
    env = await createTestEnvironment("admission-jwks", { env: { ADMIN_API_KEY: ADMIN_KEY } });
    // Built at once on a global database without a key: both insert the first one if absent, one lands.
    [first, second] = await Promise.all([
      buildApp(env.config, { logger: false }),
      buildApp(env.config, { logger: false }),
    ]);
    await Promise.all([first.ready(), second.ready()]);
    const address = await first.listen({ host: "127.0.0.1", port: 0 });
    jwksUrl = new URL("/.well-known/jwks.json", address);
    await defineRoom(first, "drop");
    await Promise.all([first.admission.refresh(), second.admission.refresh()]);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await env?.cleanup();
  });

  it("publishes the public keys only, each with its kid, cacheable, without credentials", async () => {
    const response = await get(first, "/.well-known/jwks.json", { authorization: "" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toMatch(/^public, max-age=\d+$/);
    const { keys } = response.json();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({
      kty: "EC",
      crv: "P-256",
      x: expect.any(String),
      y: expect.any(String),
      kid: first.admission.signingKeys.signingKid(),
      alg: "ES256",
      use: "sig",
    });
    expect(keys[0]).not.toHaveProperty("d");
  });

  it("signs tokens that jose verifies against the served JWKS, as a shop's server would", async () => {
    const token = await admittedToken(first, "drop", "shopper");
    expect(decodeProtectedHeader(token)).toEqual({
      alg: "ES256",
      typ: "JWT",
      kid: first.admission.signingKeys.signingKid(),
    });
    const jwks = createRemoteJWKSet(jwksUrl);
    const { payload } = await jwtVerify(token, jwks, { issuer: "floodgate", algorithms: ["ES256"] });
    expect(payload).toMatchObject({ sub: "shopper", room: "drop", tkt: expect.stringMatching(/^tkt_/) });
    expect((await pay(first, "shopper", token)).statusCode).toBe(202);
  });

  it("agrees on one key across two intakes on the same global database: each verifies the other's tokens", async () => {
    expect(second.admission.signingKeys.signingKid()).toBe(first.admission.signingKeys.signingKid());
    const fromFirst = await admittedToken(first, "drop", "alpha");
    const fromSecond = await admittedToken(second, "drop", "beta");
    expect(second.admission.tokens.verify(fromFirst)).toMatchObject({
      ok: true,
      claims: { userId: "alpha" },
    });
    expect(first.admission.tokens.verify(fromSecond)).toMatchObject({ ok: true, claims: { userId: "beta" } });
    expect((await pay(second, "alpha", fromFirst)).statusCode).toBe(202);
    expect((await pay(first, "beta", fromSecond)).statusCode).toBe(202);
  });

  it("refuses a token signed by a key it does not publish, whatever kid it names", async () => {
    const claims = {
      roomId: "drop",
      ticketId: "tkt_0000000000AAAAAAAAAAAAAAAA",
      userId: "mallory",
      admittedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    };
    const stranger = generateAdmissionSigningKey();
    const ownKid = new Es256AdmissionTokens({ keys: [{ ...stranger, signsFrom: 0 }] }).issue(claims);
    const borrowedKid = new Es256AdmissionTokens({
      keys: [{ ...stranger, kid: first.admission.signingKeys.signingKid()!, signsFrom: 0 }],
    }).issue(claims);
    // Under a kid it does not hold, refused at once; under its own kid the intake checks no signature but the
    // token's digest against the ticket's pass, and mallory holds no pass for that ticket.
    for (const [forged, reason] of [
      [ownKid, "bad_signature"],
      [borrowedKid, "unknown_ticket"],
    ] as const) {
      const refused = expectProblem(await pay(first, "mallory", forged), 403, "waiting_room_required");
      expect(refused.reason).toBe(reason);
    }
    const jwks = createRemoteJWKSet(jwksUrl);
    await expect(jwtVerify(ownKid, jwks)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    await expect(jwtVerify(borrowedKid, jwks)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it("rotates with `keys rotate`: new tokens carry the new kid, old ones still verify and pass", async () => {
    const oldKid = first.admission.signingKeys.signingKid();
    const before = await admittedToken(first, "drop", "early");

    const rotated = await keysCommand(env, ["rotate", "--lead", "0"]);
    expect(rotated.stderr).toBe("");
    expect(rotated.status).toBe(0);
    const newKid = /added key (\S+)/.exec(rotated.stdout)?.[1];
    expect(newKid).toBeDefined();
    expect(newKid).not.toBe(oldKid);

    await first.admission.signingKeys.reload(); // what its timer does every 30 s
    expect(first.admission.signingKeys.signingKid()).toBe(newKid);
    const after = await admittedToken(first, "drop", "late");
    expect(kidOf(after)).toBe(newKid);
    expect(kidOf(before)).toBe(oldKid);

    const { keys } = (await get(first, "/.well-known/jwks.json", { authorization: "" })).json();
    expect(keys.map((key: { kid: string }) => key.kid).sort()).toEqual([oldKid, newKid].sort());
    const jwks = createRemoteJWKSet(jwksUrl);
    for (const token of [before, after]) {
      await expect(jwtVerify(token, jwks, { issuer: "floodgate" })).resolves.toBeDefined();
    }
    expect((await pay(first, "early", before)).statusCode).toBe(202);
    expect((await pay(first, "late", after)).statusCode).toBe(202);

    // The second intake has not reloaded yet: the new kid makes it read the keys again, then it verifies.
    expect(second.admission.tokens.verify(after)).toEqual({ ok: false, reason: "bad_signature" });
    await waitUntil(
      async () => second.admission.signingKeys.signingKid(),
      (kid) => kid === newKid,
      "the second intake to read the rotated key",
    );
    expect(second.admission.tokens.verify(after)).toMatchObject({ ok: true, claims: { userId: "late" } });
    expect(second.admission.tokens.verify(before)).toMatchObject({ ok: true, claims: { userId: "early" } });

    const listed = await keysCommand(env, ["list"]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(`${newKid}  generation 2`);
    expect(listed.stdout).toMatch(new RegExp(`${oldKid}  generation 1 .* verifying only`));
  });
});

describe("ES256 keys from ADMISSION_SIGNING_KEYS", () => {
  let env: TestEnvironment;
  let app: FastifyInstance;
  const signing = generateAdmissionSigningKey();
  const verifying = generateAdmissionSigningKey();

  beforeAll(async () => {
    const set = {
      keys: [
        { ...signing.privateJwk, kid: "env-2026-11" },
        { ...verifying.privateJwk, kid: "env-2026-10" },
      ],
    };
    ({ env, app } = await startWithDropRoom("admission-env-keys", {
      ADMISSION_SIGNING_KEYS: JSON.stringify(set),
    }));
  });

  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
  });

  it("signs with the first key, publishes both, and verifies tokens of the second", async () => {
    const { keys } = (await get(app, "/.well-known/jwks.json", { authorization: "" })).json();
    expect(keys.map((key: { kid: string }) => key.kid)).toEqual(["env-2026-11", "env-2026-10"]);
    const token = await admittedToken(app, "drop", "shopper");
    expect(kidOf(token)).toBe("env-2026-11");
    expect((await pay(app, "shopper", token)).statusCode).toBe(202);
    const old = new Es256AdmissionTokens({
      keys: [{ kid: "env-2026-10", privateJwk: verifying.privateJwk, signsFrom: 0 }],
    });
    const claims = app.admission.tokens.verify(token);
    expect(claims.ok).toBe(true);
    if (!claims.ok) return;
    expect(app.admission.tokens.verify(old.issue(claims.claims))).toEqual(claims);
    const refused = await keysCommand(env, ["rotate"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("ADMISSION_SIGNING_KEYS is set");
  });
});

describe("HS256 admission tokens (ADMISSION_TOKEN_ALG=HS256, deprecated)", () => {
  let env: TestEnvironment;
  let app: FastifyInstance;

  beforeAll(async () => {
    ({ env, app } = await startWithDropRoom("admission-hs256", { ADMISSION_TOKEN_ALG: "HS256" }));
  });

  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
  });

  it("signs with ADMISSION_TOKEN_SECRET, lets the token through, and publishes no key", async () => {
    const token = await admittedToken(app, "drop", "shopper");
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT" });
    const secret = new Hs256AdmissionTokens(env.config.admissionTokenSecret!);
    expect(secret.verify(token)).toMatchObject({ ok: true, claims: { userId: "shopper", roomId: "drop" } });
    expect((await pay(app, "shopper", token)).statusCode).toBe(202);
    const jwks = await get(app, "/.well-known/jwks.json", { authorization: "" });
    expect(jwks.statusCode).toBe(200);
    expect(jwks.json()).toEqual({ keys: [] });
  });
});
