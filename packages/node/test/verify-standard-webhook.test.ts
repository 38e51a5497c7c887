// The Standard Webhooks scheme in @floodgate/node: verifyWebhook given the request's headers checks a delivery
// signed by signStandardWebhook (the worker's signer), the Floodgate-Signature one too, and refuses what the
// specification refuses. The third-party `standardwebhooks` package checks the same deliveries in the worker's
// tests (apps/worker/test/webhook-delivery-request.test.ts, webhooks-signature-schemes.test.ts).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signStandardWebhook, signWebhook, verifyWebhook, WebhookVerificationError } from "../src/index.ts";

const key = Buffer.alloc(24, 7);
const secret = `whsec_${key.toString("base64")}`;
const event = {
  id: "evt_1",
  type: "payment.succeeded",
  createdAt: "2026-11-28T00:00:00.000Z",
  data: { a: 1 },
};
const payload = JSON.stringify(event);
const t = 1_800_000_000;

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).code;
  }
  throw new Error("verifyWebhook accepted it");
};

describe("signStandardWebhook", () => {
  it("signs <id>.<timestamp>.<body> with the bytes the whsec_ secret encodes, base64, as the specification says", () => {
    const headers = signStandardWebhook({ id: "evt_1", payload, secret, timestamp: t });
    const expected = createHmac("sha256", key).update(`evt_1.${t}.${payload}`).digest("base64");
    expect(headers).toEqual({
      "webhook-id": "evt_1",
      "webhook-timestamp": String(t),
      "webhook-signature": `v1,${expected}`,
    });
  });

  it("puts one signature per secret, space-separated", () => {
    const other = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;
    const headers = signStandardWebhook({ id: "evt_1", payload, secret: [secret, other], timestamp: t });
    expect(headers["webhook-signature"]!.split(" ")).toEqual([
      signStandardWebhook({ id: "evt_1", payload, secret, timestamp: t })["webhook-signature"],
      signStandardWebhook({ id: "evt_1", payload, secret: other, timestamp: t })["webhook-signature"],
    ]);
  });
});

describe("verifyWebhook with the request's headers", () => {
  const signed = signStandardWebhook({ id: "evt_1", payload, secret, timestamp: t });

  it("returns the event of a Standard Webhooks delivery, with Node's headers or a fetch Headers", () => {
    expect(verifyWebhook({ payload, headers: signed, secret, now: t + 5 })).toEqual(event);
    expect(verifyWebhook({ payload, headers: new Headers(signed), secret, now: t })).toEqual(event);
    const upper = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook({ payload: Buffer.from(payload), headers: upper, secret, now: t })).toEqual(event);
  });

  it("accepts any one of several signatures, and skips versions it does not know", () => {
    const other = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;
    const both = signStandardWebhook({ id: "evt_1", payload, secret: [other, secret], timestamp: t });
    expect(verifyWebhook({ payload, headers: both, secret, now: t })).toEqual(event);
    const withV1a = { ...signed, "webhook-signature": `v1a,xyz ${signed["webhook-signature"]}` };
    expect(verifyWebhook({ payload, headers: withV1a, secret, now: t })).toEqual(event);
  });

  it("reads a base64url secret (endpoints made before Standard Webhooks) as the same key", () => {
    const old = `whsec_${Buffer.alloc(24, 0xfb).toString("base64url")}`;
    expect(old).toMatch(/[-_]/);
    const headers = signStandardWebhook({ id: "evt_1", payload, secret: old, timestamp: t });
    const standard = `whsec_${Buffer.alloc(24, 0xfb).toString("base64")}`;
    expect(verifyWebhook({ payload, headers, secret: standard, now: t })).toEqual(event);
    expect(verifyWebhook({ payload, headers, secret: old, now: t })).toEqual(event);
  });

  it("refuses a tampered body, another id or timestamp, another secret, a stale timestamp", () => {
    expect(
      refusal(() => verifyWebhook({ payload: payload.replace("1", "2"), headers: signed, secret, now: t })),
    ).toBe("bad_signature");
    const otherId = { ...signed, "webhook-id": "evt_2" };
    expect(refusal(() => verifyWebhook({ payload, headers: otherId, secret, now: t }))).toBe("bad_signature");
    const replayed = { ...signed, "webhook-timestamp": String(t + 400) };
    expect(refusal(() => verifyWebhook({ payload, headers: replayed, secret, now: t + 400 }))).toBe(
      "bad_signature",
    );
    const other = `whsec_${Buffer.alloc(24, 9).toString("base64")}`;
    expect(refusal(() => verifyWebhook({ payload, headers: signed, secret: other, now: t }))).toBe(
      "bad_signature",
    );
    expect(refusal(() => verifyWebhook({ payload, headers: signed, secret, now: t + 301 }))).toBe(
      "stale_timestamp",
    );
  });

  it("refuses missing or malformed headers", () => {
    const { "webhook-id": _id, ...noId } = signed;
    for (const headers of [
      {},
      noId,
      { ...signed, "webhook-timestamp": "soon" },
      { ...signed, "webhook-signature": "v2,abc" },
    ]) {
      expect(refusal(() => verifyWebhook({ payload, headers, secret, now: t }))).toBe("malformed_header");
    }
  });

  it("verifies a Floodgate-Signature delivery given the same headers object", () => {
    const header = signWebhook({ payload, secret, timestamp: t });
    expect(verifyWebhook({ payload, headers: { "floodgate-signature": header }, secret, now: t })).toEqual(
      event,
    );
    expect(signWebhook({ payload, secret: [secret, "whsec_b"], timestamp: t })).toMatch(
      /^t=1800000000,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/,
    );
  });
});
