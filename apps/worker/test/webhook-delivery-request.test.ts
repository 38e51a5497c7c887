// One delivery attempt against a real local receiver: signed so @floodgate/node verifies it; a non-2xx and a
// receiver that does not answer in time are failed attempts; and without WEBHOOK_ALLOW_PRIVATE the address is
// refused when the connection is made (a name that resolves to loopback too), never reaching the receiver.
import { describe, expect, it } from "vitest";
import { deliverOnce } from "../src/webhooks/delivery-request.ts";
import {
  deliveryAttempts,
  RETRY_CEILING_MS,
  RETRY_SPAN_MS,
  retryDelayMs,
} from "../src/webhooks/retry-schedule.ts";
import { startWebhookReceiver } from "./support/webhook-receiver.ts";

const event = {
  id: "evt_0123",
  type: "deposit.succeeded",
  createdAt: new Date().toISOString(),
  data: { id: "dep_x" },
};
const payload = JSON.stringify(event);

describe("deliverOnce", () => {
  it("signs the body and sends Floodgate-Event-Id; a 2xx is delivered, a 503 is a failed attempt", async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.setSecret("whsec_one");
      const target = { url: receiver.url, secret: "whsec_one", eventId: event.id, payload };
      expect(await deliverOnce(target, { timeoutMs: 10_000, allowPrivate: true })).toEqual({
        ok: true,
        statusCode: 200,
      });
      expect(receiver.received[0]).toMatchObject({ event, eventIdHeader: event.id, status: 200 });
      receiver.mode = "down";
      expect(await deliverOnce(target, { timeoutMs: 10_000, allowPrivate: true })).toMatchObject({
        ok: false,
        statusCode: 503,
      });
      // Signed with another secret: the receiver's verifier refuses it.
      receiver.mode = "ok";
      await deliverOnce({ ...target, secret: "whsec_two" }, { timeoutMs: 10_000, allowPrivate: true });
      expect(receiver.forged).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.setSecret("whsec_one");
      receiver.mode = "hold";
      const result = await deliverOnce(
        { url: receiver.url, secret: "whsec_one", eventId: event.id, payload },
        { timeoutMs: 300, allowPrivate: true },
      );
      expect(result).toMatchObject({ ok: false, statusCode: null, error: "no answer in 300 ms" });
    } finally {
      receiver.release();
      await receiver.close();
    }
  });

  it("refuses a private address at connection time unless allowed, by literal and by name", async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.setSecret("whsec_one");
      const byName = receiver.url.replace("127.0.0.1", "localhost");
      for (const url of [receiver.url, byName]) {
        const result = await deliverOnce(
          { url, secret: "whsec_one", eventId: event.id, payload },
          { timeoutMs: 5000, allowPrivate: false },
        );
        expect(result.ok, url).toBe(false);
        if (!result.ok) expect(result.error).toMatch(/private, loopback or link-local/);
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe("the retry schedule", () => {
  it("doubles from the base up to the ceiling, and its retries span three days", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(30_000, n))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(30_000, 30)).toBe(RETRY_CEILING_MS);
    for (const base of [1000, 30_000, 600_000]) {
      const attempts = deliveryAttempts(base);
      let span = 0;
      for (let n = 1; n < attempts; n++) span += retryDelayMs(base, n);
      expect(span).toBeGreaterThanOrEqual(RETRY_SPAN_MS);
      expect(span - retryDelayMs(base, attempts - 1)).toBeLessThan(RETRY_SPAN_MS);
    }
    expect(deliveryAttempts(30_000)).toBe(22);
  });
});
