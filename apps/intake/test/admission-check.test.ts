// POST /v1/rooms/:roomId/admissions/verify against the real intake and Redis: what a shop's server asks when it
// wants what its offline check cannot see (a revoked admission), and @floodgate/node's gate with `online: true`
// (from its tarball) asking it, while the same gate offline still lets the revoked token through.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem } from "./support/intake-test-kit.ts";
import {
  admittedToken,
  defineRoom,
  type FloodgateNode,
  installNodePackage,
  tokenPart,
} from "./support/shop-gate-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let jwksUrl: string;
let floodgate: FloodgateNode;
let removePackage: () => Promise<void>;

beforeAll(async () => {
  env = await createTestEnvironment("admission-check", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  jwksUrl = new URL("/.well-known/jwks.json", await app.listen({ host: "127.0.0.1", port: 0 })).href;
  await defineRoom(app, "drop");
  await defineRoom(app, "other", ["deposits"]);
  await app.admission.refresh();
  ({ module: floodgate, remove: removePackage } = await installNodePackage());
}, 300_000); // packing and installing the tarball take a while on a busy machine

afterAll(async () => {
  await app?.close();
  await removePackage?.();
  await env?.cleanup();
});

/** The check as a shop's server sends it: no credential. */
const check = (roomId: string, body: unknown) =>
  documentedInject(app, {
    method: "POST",
    url: `/v1/rooms/${roomId}/admissions/verify`,
    payload: body as object,
  });

const revoke = (roomId: string, ticketId: string) =>
  documentedInject(app, {
    method: "DELETE",
    url: `/v1/rooms/${roomId}/tokens/${ticketId}`,
    headers: adminHeaders(),
  });

describe("POST /v1/rooms/:roomId/admissions/verify", () => {
  it("says a live admission is valid, without a credential, and why another is not", async () => {
    const token = await admittedToken(app, "drop", "checked");
    expect((await check("drop", { token })).json()).toEqual({ valid: true, reason: null });
    expect((await check("other", { token })).json()).toEqual({ valid: false, reason: "wrong_room" });
    const [header, payload, signature] = token.split(".");
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...tokenPart(token, 1), sub: "x" })).toString("base64url")}.${signature}`;
    expect((await check("drop", { token: tampered })).json()).toEqual({
      valid: false,
      reason: "bad_signature",
    });
    expect((await check("drop", { token: `${payload}` })).json()).toEqual({
      valid: false,
      reason: "malformed",
    });
  });

  it("says a revoked admission is revoked, where the signature alone still verifies", async () => {
    const token = await admittedToken(app, "drop", "revoked");
    expect((await revoke("drop", tokenPart(token, 1).tkt)).statusCode).toBe(204);
    expect(app.admission.tokens.verify(token)).toMatchObject({ ok: true });
    expect((await check("drop", { token })).json()).toEqual({ valid: false, reason: "revoked" });
  });

  it("refuses a body without a token as a problem naming the field", async () => {
    const refused = expectProblem(await check("drop", {}), 400, "validation_error");
    expect(JSON.stringify(refused.errors)).toContain("token");
  });
});

describe("the gate with online: true", () => {
  it("refuses a revoked admission that the offline gate still lets through", async () => {
    const options = { jwksUrl, roomId: "drop", roomUrl: "https://shop.example/queue" };
    const offline = floodgate.admissionGate(options);
    const online = floodgate.admissionGate({ ...options, online: true });
    const token = await admittedToken(app, "drop", "online");
    const request = { url: "/api/cart", headers: { authorization: `Bearer ${token}` } };
    expect(await online.decide(request)).toMatchObject({ pass: true, admission: { userId: "online" } });

    expect((await revoke("drop", tokenPart(token, 1).tkt)).statusCode).toBe(204);
    expect(await offline.decide(request)).toMatchObject({ pass: true });
    const refused = await online.decide(request);
    expect(refused).toMatchObject({ pass: false, status: 403 });
    if (!refused.pass) expect(JSON.parse(refused.body)).toMatchObject({ reason: "revoked" });
  });
});
