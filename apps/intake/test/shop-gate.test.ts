// @floodgate/node's gate in a shop's real Express and Fastify apps (and node:http), installed from its npm pack
// tarball, in front of a real intake whose JWKS it reads over HTTP: pages without an admission go to the room,
// API calls get a 403 problem, the gate's admit route sets its cookie and sends the browser back to this origin
// only, and a key rotated in with `./floodgate keys rotate` verifies (the JWKS fetched again for the new kid, at
// most once per cooldown).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Es256AdmissionTokens, Hs256AdmissionTokens } from "@floodgate/admission";
import { generateAdmissionSigningKey } from "@floodgate/auth";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import {
  admittedToken,
  defineRoom,
  type FloodgateNode,
  installNodePackage,
  rotateKey,
  tokenPart,
} from "./support/shop-gate-kit.ts";

const ROOM_URL = "https://shop.example/queue";
const PAGE = { accept: "text/html,application/xhtml+xml" };
const API = { accept: "application/json" };

let env: TestEnvironment;
let intake: FastifyInstance;
let jwksUrl: string;
let floodgate: FloodgateNode;
let removePackage: () => Promise<void>;
const shops: { close(): unknown }[] = [];
// Packing and installing the tarball, and each `keys rotate` (a CLI process), take a while on a busy machine.
const SLOW_STEP_MS = 300_000;

beforeAll(async () => {
  env = await createTestEnvironment("shop-gate", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  intake = await buildApp(env.config, { logger: false });
  await intake.ready();
  jwksUrl = new URL("/.well-known/jwks.json", await intake.listen({ host: "127.0.0.1", port: 0 })).href;
  await defineRoom(intake, "drop");
  await defineRoom(intake, "other", ["deposits"]);
  await intake.admission.refresh();
  ({ module: floodgate, remove: removePackage } = await installNodePackage());
}, SLOW_STEP_MS);

afterAll(async () => {
  for (const shop of shops) await shop.close();
  await intake?.close();
  await removePackage?.();
  await env?.cleanup();
});

/** The gate as a shop sets it up; plain-http cookies, since these shops listen on http. */
const gateOptions = (extra: Partial<Parameters<FloodgateNode["admissionGate"]>[0]> = {}) => ({
  jwksUrl,
  roomId: "drop",
  roomUrl: ROOM_URL,
  secureCookie: false,
  protect: ({ path }: { path: string }) => path !== "/about",
  ...extra,
});

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  shops.push({ close: () => new Promise((resolve) => server.close(resolve)) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function expressShop(): Promise<string> {
  const gate = floodgate.admissionGate(gateOptions());
  const app = express();
  app.use(gate.express());
  app.get("/product", (req, res) => {
    res.type("html").send(`<h1>The drop</h1> for ${floodgate.admissionOf(req)?.userId}`);
  });
  app.get("/api/stock", (req, res) => {
    res.json({ units: 3, user: floodgate.admissionOf(req)?.userId });
  });
  app.get("/about", (_req, res) => {
    res.send("about us");
  });
  return listening(createServer(app));
}

async function fastifyShop(): Promise<string> {
  const gate = floodgate.admissionGate(gateOptions());
  const app = Fastify();
  app.addHook("onRequest", gate.fastify());
  app.get("/product", async (request, reply) =>
    reply.type("text/html").send(`<h1>The drop</h1> for ${floodgate.admissionOf(request)?.userId}`),
  );
  app.get("/api/stock", async (request) => ({ units: 3, user: floodgate.admissionOf(request)?.userId }));
  app.get("/about", async () => "about us");
  await app.listen({ host: "127.0.0.1", port: 0 });
  shops.push(app);
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

const visit = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers, redirect: "manual" });

describe.each([
  ["Express", expressShop],
  ["Fastify", fastifyShop],
])("the gate in a real %s app", (_name, startShop) => {
  let shop: string;

  beforeAll(async () => {
    shop = await startShop();
  });

  it("sends a page without an admission to the room, with the way back, and an API call a 403 problem", async () => {
    const page = await visit(`${shop}/product?color=red`, PAGE);
    expect(page.status).toBe(302);
    const room = new URL(page.headers.get("location")!);
    expect(`${room.origin}${room.pathname}`).toBe(ROOM_URL);
    expect(room.searchParams.get("return")).toBe("/product?color=red");
    expect(page.headers.get("cache-control")).toBe("no-store");

    const api = await visit(`${shop}/api/stock`, API);
    expect(api.status).toBe(403);
    expect(api.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await api.json()).toMatchObject({
      status: 403,
      code: "waiting_room_required",
      roomId: "drop",
      reason: "no_token",
      roomUrl: ROOM_URL,
    });
    // A path the shop leaves open.
    const about = await visit(`${shop}/about`, PAGE);
    expect(about.status).toBe(200);
  });

  it("takes the room's token at its admit route: the HttpOnly cookie set, back to the page, which opens", async () => {
    const token = await admittedToken(intake, "drop", `shopper-${_name}`);
    const admit = await visit(
      `${shop}/.floodgate/admit?token=${token}&return=${encodeURIComponent("/product?color=red")}`,
      PAGE,
    );
    expect(admit.status).toBe(302);
    expect(admit.headers.get("location")).toBe("/product?color=red");
    const cookie = admit.headers.get("set-cookie")!;
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(cookie).toMatch(
      new RegExp(`^floodgate_admission=${token}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Lax$`),
    );
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(120); // the room's sessionSeconds

    const page = await visit(`${shop}/product?color=red`, {
      ...PAGE,
      cookie: `theme=dark; ${cookie.split(";")[0]}`,
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(`<h1>The drop</h1> for shopper-${_name}`);
  });

  it("lets an API call with an Authorization: Bearer admission through, its claims beside the request", async () => {
    const token = await admittedToken(intake, "drop", `api-${_name}`);
    const api = await visit(`${shop}/api/stock`, { ...API, authorization: `Bearer ${token}` });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual({ units: 3, user: `api-${_name}` });
  });

  it("redirects only to a path of its own origin", async () => {
    const token = await admittedToken(intake, "drop", `redirect-${_name}`);
    for (const back of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
      "product",
    ]) {
      const admit = await visit(
        `${shop}/.floodgate/admit?token=${token}&return=${encodeURIComponent(back)}`,
        PAGE,
      );
      expect(admit.status, back).toBe(302);
      expect(admit.headers.get("location"), back).toBe("/");
    }
  });

  it("refuses a token of another room, a tampered one, and one signed by a key the intake does not publish", async () => {
    const other = await admittedToken(intake, "other", `elsewhere-${_name}`);
    const mine = await admittedToken(intake, "drop", `tamper-${_name}`);
    const [header, payload, signature] = mine.split(".");
    const claims = { ...tokenPart(mine, 1), sub: "someone-else" };
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    const stranger = generateAdmissionSigningKey();
    const forged = new Es256AdmissionTokens({
      keys: [{ ...stranger, kid: tokenPart(mine, 0).kid, signsFrom: 0 }],
    }).issue({
      roomId: "drop",
      ticketId: "tkt_0000000000AAAAAAAAAAAAAAAA",
      userId: "mallory",
      admittedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    for (const [token, reason] of [
      [other, "wrong_room"],
      [tampered, "bad_signature"],
      [forged, "bad_signature"],
      [`${header}.${payload}.${signature}=`, "bad_signature"],
      ["not-a-token", "malformed"],
    ]) {
      const api = await visit(`${shop}/api/stock`, { ...API, authorization: `Bearer ${token}` });
      expect(api.status, reason).toBe(403);
      expect(await api.json()).toMatchObject({ code: "waiting_room_required", reason });
    }
    // At the admit route a bad token sends the page to the room, its way back kept.
    const admit = await visit(`${shop}/.floodgate/admit?token=${other}&return=%2Fproduct`, PAGE);
    expect(admit.status).toBe(302);
    expect(new URL(admit.headers.get("location")!).searchParams.get("return")).toBe("/product");
    expect(admit.headers.get("set-cookie")).toBeNull();
  });
});

describe("verifyAdmission, from the tarball", () => {
  it("resolves to the claims the intake signed, and names why a token does not admit", async () => {
    const token = await admittedToken(intake, "drop", "verified");
    const claims = await floodgate.verifyAdmission(token, { jwksUrl, roomId: "drop" });
    expect(claims).toEqual({
      roomId: "drop",
      ticketId: tokenPart(token, 1).tkt,
      userId: "verified",
      admittedAt: tokenPart(token, 1).iat * 1000,
      expiresAt: tokenPart(token, 1).exp * 1000,
    });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => "admitted",
        (error) => (error instanceof floodgate.AdmissionVerificationError ? error.code : String(error)),
      );
    expect(await refusal(floodgate.verifyAdmission(token, { jwksUrl, roomId: "other" }))).toBe("wrong_room");
    expect(
      await refusal(floodgate.verifyAdmission(token, { jwksUrl, roomId: "drop", issuer: "someone" })),
    ).toBe("wrong_issuer");
    const verifier = new floodgate.AdmissionVerifier({ jwksUrl, roomId: "drop" });
    expect(await refusal(verifier.verify(token, claims.expiresAt))).toBe("expired");
    expect(await refusal(verifier.verify(token, claims.expiresAt - 1))).toBe("admitted");
    const hs256 = new Hs256AdmissionTokens("a-shared-secret").issue(claims);
    expect(await refusal(verifier.verify(hs256))).toBe("unsupported_algorithm");
    const unreachable = { jwksUrl: "http://127.0.0.1:9/.well-known/jwks.json", roomId: "drop" };
    expect(await refusal(floodgate.verifyAdmission(token, unreachable))).toBe("jwks_unavailable");
  });
});

describe("the gate in node:http, with its defaults", () => {
  it("sets a Secure cookie unless told otherwise, and answers 503 when it cannot read the keys", async () => {
    const gate = floodgate.admissionGate({ jwksUrl, roomId: "drop", roomUrl: ROOM_URL });
    const shop = await listening(
      createServer(gate.node((req, res) => res.end(`hello ${floodgate.admissionOf(req)?.userId}`))),
    );
    const token = await admittedToken(intake, "drop", "plain-node");
    const admit = await visit(`${shop}/.floodgate/admit?token=${token}`, PAGE);
    expect(admit.headers.get("location")).toBe("/");
    expect(admit.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    const page = await visit(`${shop}/anything`, { cookie: `floodgate_admission=${token}` });
    expect(await page.text()).toBe("hello plain-node");

    const blind = floodgate.admissionGate({
      jwksUrl: "http://127.0.0.1:9/.well-known/jwks.json",
      roomId: "drop",
      roomUrl: ROOM_URL,
    });
    const decision = await blind.decide({ url: "/api", headers: { authorization: `Bearer ${token}` } });
    expect(decision).toMatchObject({ pass: false, status: 503 });
    if (!decision.pass) expect(JSON.parse(decision.body)).toMatchObject({ code: "admission_unavailable" });
  });
});

describe("a key rotated in with `./floodgate keys rotate`", () => {
  it(
    "verifies at a gate that read the JWKS before it (fetched again for the new kid); old tokens still pass",
    async () => {
      const gate = floodgate.admissionGate(gateOptions({ unknownKidCooldownMs: 3_600_000 }));
      const shop = await listening(
        createServer(gate.node((req, res) => res.end(`hello ${floodgate.admissionOf(req)?.userId}`))),
      );
      const bearer = (token: string) => visit(`${shop}/api`, { ...API, authorization: `Bearer ${token}` });
      const before = await admittedToken(intake, "drop", "before-rotation");
      expect((await bearer(before)).status).toBe(200); // the gate has read the JWKS: one key

      const newKid = await rotateKey(env, intake);
      const after = await admittedToken(intake, "drop", "after-rotation");
      expect(tokenPart(after, 0).kid).toBe(newKid);
      expect(tokenPart(before, 0).kid).not.toBe(newKid);
      expect(await (await bearer(after)).text()).toBe("hello after-rotation");
      expect(await (await bearer(before)).text()).toBe("hello before-rotation");

      // Another rotation within the gate's cooldown: the set is not fetched again for it, so its kid is unknown
      // there; a gate without that cooldown, which had read the set before too, reads it again.
      const eager = floodgate.admissionGate(gateOptions({ unknownKidCooldownMs: 0 }));
      const asApi = (token: string) => ({ url: "/api", headers: { authorization: `Bearer ${token}` } });
      expect(await eager.decide(asApi(after))).toMatchObject({ pass: true });
      await rotateKey(env, intake);
      const latest = await admittedToken(intake, "drop", "latest");
      const refused = await bearer(latest);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ reason: "unknown_key" });
      expect(await eager.decide(asApi(latest))).toMatchObject({
        pass: true,
        admission: { userId: "latest" },
      });
    },
    SLOW_STEP_MS,
  );
});
