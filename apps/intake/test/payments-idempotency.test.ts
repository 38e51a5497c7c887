import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { documentedInject, withCredentials } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("payments-idempotency");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const pay = (body: unknown, key?: string) =>
  documentedInject(app, {
    method: "POST",
    url: "/v1/payments",
    headers: withCredentials(app, key ? { "idempotency-key": key } : {}),
    payload: body as object,
  });

const streamLength = async () => {
  let total = 0;
  for (const stream of app.queueKeys.allStreams()) total += await app.redis.xlen(stream);
  return total;
};

describe("Idempotency-Key", () => {
  it("returns the same id for the same key and body, and enqueues once", async () => {
    const first = await pay({ userId: "idem-1", amount: 500 }, "key-1");
    const again = await pay({ userId: "idem-1", amount: 500 }, "key-1");
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await streamLength()).toBe(1);
  });

  it("refuses the same key with a different body with 422 and enqueues nothing", async () => {
    const before = await streamLength();
    const first = await pay({ userId: "idem-2", amount: 500 }, "key-2");
    const other = await pay({ userId: "idem-2", amount: 501 }, "key-2");
    expect(other.statusCode).toBe(422);
    expect(other.headers["content-type"]).toContain("application/problem+json");
    expect(other.json()).toMatchObject({
      code: "idempotency_key_reused",
      field: "Idempotency-Key",
      existingId: first.json().id,
    });
    expect(await streamLength()).toBe(before + 1);
  });

  it("creates one payment for ten concurrent requests with one key", async () => {
    const before = await streamLength();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => pay({ userId: "idem-3", amount: 42 }, "key-3")),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.json().id)).size).toBe(1);
    expect(await streamLength()).toBe(before + 1);
  });

  it("scopes keys per user", async () => {
    const a = await pay({ userId: "idem-4a", amount: 1 }, "shared-key");
    const b = await pay({ userId: "idem-4b", amount: 1 }, "shared-key");
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(a.json().id).not.toBe(b.json().id);
  });
});
