// Floodgate-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the endpoint's secret>`, as
// Stripe signs: the scheme of endpoints made before Standard Webhooks (standard-webhooks.ts), kept for them
// until the shop switches. The timestamp is inside the MAC, so a captured delivery cannot be replayed later
// with a new one. Floodgate's worker signs with signWebhook from this very file, so the signer and the
// verifier cannot drift apart.
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./webhook-verification-error.ts";

export const SIGNATURE_HEADER = "Floodgate-Signature";
export const EVENT_ID_HEADER = "Floodgate-Event-Id";

const hmacHex = (secret: string, timestamp: number, payload: string): string =>
  createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");

/**
 * The header value for `payload` (the exact bytes sent) at `timestamp` (unix seconds, default now): one `v1=`
 * per secret (two while a rotated secret still signs; the whole `whsec_…` string is the HMAC key).
 */
export function signWebhook({
  payload,
  secret,
  timestamp = Math.floor(Date.now() / 1000),
}: {
  payload: string;
  secret: string | readonly string[];
  timestamp?: number;
}): string {
  const secrets = typeof secret === "string" ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((one) => `v1=${hmacHex(one, timestamp, payload)}`)].join(",");
}

/** The header's timestamp if one of its `v1=` is `payload`'s with `secret`; a WebhookVerificationError if not. */
export function checkFloodgateSignature(header: string, payload: string, secret: string): number {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value, ...rest] = part.trim().split("=");
    if (value === undefined || rest.length > 0) continue;
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    // More than one v1 may come while a secret is being rolled: any one matching is enough.
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookVerificationError(
      "malformed_header",
      `${SIGNATURE_HEADER} must be t=<unix seconds>,v1=<64 hex digits>`,
    );
  }
  const expected = Buffer.from(hmacHex(secret, timestamp, payload), "hex");
  // Constant time: how long a refusal takes tells nothing of how much of a forged signature was right.
  if (!signatures.some((signature) => timingSafeEqual(Buffer.from(signature, "hex"), expected))) {
    throw new WebhookVerificationError(
      "bad_signature",
      "the signature does not match this payload and secret",
    );
  }
  return timestamp;
}
