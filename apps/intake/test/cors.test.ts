// Cross-origin calls from shop pages (the checkout SDK): only the origins in CORS_ORIGINS, with the headers the
// SDK sends (Idempotency-Key, Admission-Token) and reads (Location, Retry-After, RateLimit...).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { documentedInject, withCredentials } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let closed: FastifyInstance;
const SHOP = "https://shop.example";

beforeAll(async () => {
  env = await createTestEnvironment("cors", { env: { CORS_ORIGINS: SHOP } });
  app = await buildApp(env.config, { logger: false });
  closed = await buildApp({ ...env.config, corsOrigins: [] }, { logger: false });
  await Promise.all([app.ready(), closed.ready()]);
});

afterAll(async () => {
  await Promise.all([app?.close(), closed?.close()]);
  await env?.cleanup();
});

const preflight = (target: FastifyInstance, origin: string) =>
  documentedInject(target, {
    method: "OPTIONS",
    url: "/v1/payments",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type,idempotency-key,admission-token",
    },
  });

describe("CORS", () => {
  it("lets a listed origin send the SDK's headers and read the answer's", async () => {
    const answer = await preflight(app, SHOP);
    expect(answer.statusCode).toBe(204);
    expect(answer.headers["access-control-allow-origin"]).toBe(SHOP);
    expect(String(answer.headers["access-control-allow-headers"])).toContain("admission-token");
    // The SDK sends the shopper's customer token as a bearer.
    expect(String(answer.headers["access-control-allow-headers"])).toContain("authorization");
    const paid = await documentedInject(app, {
      method: "POST",
      url: "/v1/payments",
      headers: withCredentials(app, { origin: SHOP, "content-type": "application/json" }),
      payload: { userId: "cross-origin", amount: 5 },
    });
    expect(paid.statusCode).toBe(202);
    expect(paid.headers["access-control-allow-origin"]).toBe(SHOP);
    expect(String(paid.headers["access-control-expose-headers"])).toContain("location");
  });

  it("grants nothing to another origin, or to any origin when none is configured", async () => {
    expect(
      (await preflight(app, "https://evil.example")).headers["access-control-allow-origin"],
    ).toBeUndefined();
    expect((await preflight(closed, SHOP)).headers["access-control-allow-origin"]).toBeUndefined();
  });
});
