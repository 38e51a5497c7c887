// One delivery attempt against a real local receiver: signed in the endpoint's scheme, so @floodgate/node and
// the third-party `standardwebhooks` package verify it (one signature per secret); a non-2xx and a
// receiver that does not answer in time are failed attempts; and without WEBHOOK_ALLOW_PRIVATE the address is
// refused when the connection is made (a name that resolves to loopback too), never reaching the receiver.

import { verifyWebhook } from "@floodgate/node";
import { Webhook } from "standardwebhooks";
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

// A secret as POST /v1/webhook-endpoints makes them, and one from before Standard Webhooks (base64url).
const NEW_SECRET = `whsec_${Buffer.alloc(24, 0xfb).toString("base64")}`;
const OLD_SECRET = `whsec_${Buffer.alloc(24, 0xf7).toString("base64url")}`;

describe("deliverOnce", () => {
  it("signs a standard-webhooks endpoint's delivery as the standardwebhooks package verifies, one signature per secret", async () => {
    const thirdParty = (body: string, headers: Record<string, unknown>, secret: string) =>
      new Webhook(secret).verify(body, headers as Record<string, string>) as typeof event;
    const receiver = await startWebhookReceiver(thirdParty);
    try {
      receiver.setSecret(NEW_SECRET);
      const target = {
        url: receiver.url,
        scheme: "standard-webhooks" as const,
        secrets: [NEW_SECRET],
        eventId: event.id,
        payload,
      };
      expect(await deliverOnce(target, { timeoutMs: 10_000, allowPrivate: true })).toMatchObject({
        ok: true,
      });
      const [first] = receiver.received;
      expect(first).toMatchObject({ event, eventIdHeader: event.id });
      expect(first!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(first!.headers).not.toHaveProperty("floodgate-signature");
      // Two secrets (a rotation's overlap): two signatures, space-separated; either one's holder verifies.
      await deliverOnce(
        { ...target, secrets: [NEW_SECRET, OLD_SECRET] },
        { timeoutMs: 10_000, allowPrivate: true },
      );
      const second = receiver.received[1]!;
      expect(String(second.headers["webhook-signature"]).split(" ")).toHaveLength(2);
      // The old secret is base64url: the same key in standard base64 for the package, and as it is for ours.
      const standardOld = `whsec_${OLD_SECRET.slice(6).replaceAll("-", "+").replaceAll("_", "/")}`;
      expect(thirdParty(second.body, second.headers, standardOld)).toEqual(event);
      expect(verifyWebhook({ payload: second.body, headers: second.headers, secret: OLD_SECRET })).toEqual(
        event,
      );
      expect(receiver.forged).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("signs the body and sends Floodgate-Event-Id; a 2xx is delivered, a 503 is a failed attempt", async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.setSecret("whsec_one");
      const target = {
        url: receiver.url,
        scheme: "floodgate-signature" as const,
        secrets: ["whsec_one"],
        eventId: event.id,
        payload,
      };
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
      await deliverOnce({ ...target, secrets: ["whsec_two"] }, { timeoutMs: 10_000, allowPrivate: true });
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
        {
          url: receiver.url,
          scheme: "floodgate-signature",
          secrets: ["whsec_one"],
          eventId: event.id,
          payload,
        },
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
          { url, scheme: "standard-webhooks", secrets: [NEW_SECRET], eventId: event.id, payload },
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
