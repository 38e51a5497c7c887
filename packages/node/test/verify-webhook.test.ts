import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "../src/index.ts";

const secret = "whsec_test_secret_for_the_verifier";
const event = {
  id: "evt_1",
  type: "payment.succeeded",
  createdAt: "2026-11-26T00:00:00.000Z",
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

describe("verifyWebhook", () => {
  it("returns the event of a genuine delivery (string or Buffer body)", () => {
    const header = signWebhook({ payload, secret, timestamp: t });
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook({ payload, header, secret, now: t + 10 })).toEqual(event);
    expect(verifyWebhook({ payload: Buffer.from(payload), header: [header], secret, now: t - 10 })).toEqual(
      event,
    );
  });

  it("refuses a tampered body", () => {
    const header = signWebhook({ payload, secret, timestamp: t });
    const tampered = payload.replace('"a":1', '"a":2');
    expect(refusal(() => verifyWebhook({ payload: tampered, header, secret, now: t }))).toBe("bad_signature");
  });

  it("refuses another endpoint's secret", () => {
    const header = signWebhook({ payload, secret: "whsec_someone_else", timestamp: t });
    expect(refusal(() => verifyWebhook({ payload, header, secret, now: t }))).toBe("bad_signature");
  });

  it("refuses a stale timestamp, and a replay with the timestamp changed", () => {
    const header = signWebhook({ payload, secret, timestamp: t });
    expect(refusal(() => verifyWebhook({ payload, header, secret, now: t + 301 }))).toBe("stale_timestamp");
    expect(verifyWebhook({ payload, header, secret, now: t + 301, toleranceSeconds: 600 })).toEqual(event);
    const replayed = header.replace(`t=${t}`, `t=${t + 301}`);
    expect(refusal(() => verifyWebhook({ payload, header: replayed, secret, now: t + 301 }))).toBe(
      "bad_signature",
    );
  });

  it("refuses a missing or malformed header", () => {
    for (const header of [undefined, "", "v1=abc", `t=${t}`, "garbage", `t=x,v1=${"0".repeat(64)}`]) {
      expect(refusal(() => verifyWebhook({ payload, header, secret, now: t }))).toBe("malformed_header");
    }
  });
});
