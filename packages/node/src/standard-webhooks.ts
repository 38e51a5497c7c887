// Standard Webhooks (https://www.standardwebhooks.com, v1): `webhook-id`, `webhook-timestamp` (unix seconds)
// and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the bytes the
// `whsec_<base64>` secret encodes. Several signatures, space-separated, while a rotated secret still signs.
// The scheme of every endpoint made since it came; a shop verifies it with this package or any Standard
// Webhooks library (Python, Go, PHP, Ruby, Java, .NET...).
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./webhook-verification-error.ts";

export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";

const SECRET_PREFIX = "whsec_";

/**
 * The HMAC key a `whsec_…` secret stands for. The base64 after the prefix may use either alphabet: Floodgate's
 * secrets from before Standard Webhooks were written base64url, which Node decodes to the same bytes (a
 * Standard Webhooks library wants `-` as `+` and `_` as `/`).
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
    throw new TypeError("the secret is not whsec_ followed by base64");
  }
  return Buffer.from(encoded, "base64");
}

const signatureOf = (key: Buffer, id: string, timestamp: number, payload: string): Buffer =>
  createHmac("sha256", key).update(`${id}.${timestamp}.${payload}`, "utf8").digest();

/** The three headers for `payload` (the exact bytes sent): one `v1,` signature per secret. */
export function signStandardWebhook({
  id,
  payload,
  secret,
  timestamp = Math.floor(Date.now() / 1000),
}: {
  id: string;
  payload: string;
  secret: string | readonly string[];
  timestamp?: number;
}): Record<string, string> {
  const secrets = typeof secret === "string" ? [secret] : secret;
  const signatures = secrets.map(
    (one) => `v1,${signatureOf(standardWebhookKey(one), id, timestamp, payload).toString("base64")}`,
  );
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signatures.join(" "),
  };
}

/** The timestamp if one of the `v1,` signatures is `payload`'s with `secret`; a WebhookVerificationError if not. */
export function checkStandardSignature(
  headers: { id: string | undefined; timestamp: string | undefined; signature: string },
  payload: string,
  secret: string,
): number {
  const { id, timestamp, signature } = headers;
  if (id === undefined || id === "" || timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      "malformed_header",
      `${WEBHOOK_ID_HEADER} and ${WEBHOOK_TIMESTAMP_HEADER} (unix seconds) must come with ${WEBHOOK_SIGNATURE_HEADER}`,
    );
  }
  // Other versions (v1a: asymmetric) are skipped, as the specification says; only v1 counts.
  const signatures = signature
    .split(" ")
    .map((entry) => entry.split(","))
    .filter(([version, value]) => version === "v1" && value !== undefined && value !== "")
    .map(([, value]) => Buffer.from(value!, "base64"));
  if (signatures.length === 0) {
    throw new WebhookVerificationError("malformed_header", `${WEBHOOK_SIGNATURE_HEADER} has no v1,<base64>`);
  }
  const seconds = Number(timestamp);
  const expected = signatureOf(standardWebhookKey(secret), id, seconds, payload);
  // Constant time: how long a refusal takes tells nothing of how much of a forged signature was right.
  const matches = signatures.some(
    (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
  );
  if (!matches) {
    throw new WebhookVerificationError(
      "bad_signature",
      "the signature does not match this payload and secret",
    );
  }
  return seconds;
}
