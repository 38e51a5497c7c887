// The saturation comparison's peers (payments --generator wrk --peer), started for real as the bench starts
// them: each answers POST /v1/payments 202 with an id and status pending, writes the payment to Redis under its
// own prefix, and leaves no key behind once closed.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PeerProcess, startPeer } from "../src/payments/peers/peer-process.ts";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const logDirectory = mkdtempSync(path.join(tmpdir(), "peers-test-"));
const run = randomBytes(4).toString("hex");
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
});

afterAll(() => {
  redis?.disconnect();
  rmSync(logDirectory, { recursive: true, force: true });
});

const keysUnder = (prefix: string) => redis.keys(`${prefix}*`);

async function pay(peer: PeerProcess, idempotencyKey: string) {
  const response = await fetch(`${peer.baseUrl}/v1/payments`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify({ userId: "bench-user-7", amount: 500 }),
  });
  return { status: response.status, body: (await response.json()) as { id: unknown; status: unknown } };
}

describe.each(["raw", "bullmq"] as const)("peer %s", (name) => {
  it("answers 202 pending with an id, keeps the payment in Redis under its prefix, and cleans it on close", async () => {
    const keyPrefix = `fgpeer-test:${run}-${name}:`;
    const peer = await startPeer({
      name,
      redisUrl: REDIS_URL,
      keyPrefix,
      logFile: path.join(logDirectory, `${name}.log`),
    });
    let closed = false;
    try {
      const answer = await pay(peer, `${run}-key-1`);
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ status: "pending" });
      expect(typeof answer.body.id).toBe("string");
      if (name === "raw") {
        const entries = await redis.xrange(`${keyPrefix}payments`, "-", "+");
        expect(entries).toEqual([
          [answer.body.id, ["d", JSON.stringify({ userId: "bench-user-7", amount: 500 })]],
        ]);
      } else {
        expect(answer.body.id).toBe(`${run}-key-1`);
        const job = await redis.hgetall(`${keyPrefix}bull:payments:${run}-key-1`);
        expect(job).toMatchObject({
          name: "pay",
          data: JSON.stringify({ userId: "bench-user-7", amount: 500 }),
        });
      }
      expect((await keysUnder(keyPrefix)).length).toBeGreaterThan(0);
      const removed = await peer.close();
      closed = true;
      expect(removed).toBeGreaterThan(0);
      expect(await keysUnder(keyPrefix)).toEqual([]);
    } finally {
      if (!closed) await peer.close();
    }
  });
});
