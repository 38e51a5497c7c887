// Floodgate-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the endpoint's secret>`, as
// Stripe signs. The timestamp is inside the MAC, so a captured delivery cannot be replayed later with a new
// one; the receiver refuses timestamps older than its tolerance. Floodgate's worker signs with signWebhook
// from this very file, so the signer and the verifier cannot drift apart.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "Floodgate-Signature";
export const EVENT_ID_HEADER = "Floodgate-Event-Id";

export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  data: Data;
}

export type WebhookErrorCode = "malformed_header" | "bad_signature" | "stale_timestamp" | "malformed_payload";

/** Why a delivery was refused; `code` is for programs, the message for people. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookErrorCode;
  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
  }
}

const hmacHex = (secret: string, timestamp: number, payload: string): string =>
  createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");

/** The header value for `payload` (the exact bytes sent) at `timestamp` (unix seconds, default now). */
export function signWebhook({
  payload,
  secret,
  timestamp = Math.floor(Date.now() / 1000),
}: {
  payload: string;
  secret: string;
  timestamp?: number;
}): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, payload)}`;
}

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received (a re-serialised object would not match). */
  payload: string | Buffer;
  /** The Floodgate-Signature header. */
  header: string | string[] | undefined;
  /** The endpoint's `whsec_...` secret. */
  secret: string;
  /** How old (or how far ahead) a timestamp may be; 300 s by default. */
  toleranceSeconds?: number;
  /** Unix seconds to judge the timestamp against (tests); the clock by default. */
  now?: number;
}

/** The parsed event of a genuine, fresh delivery; a WebhookVerificationError otherwise. */
export function verifyWebhook<Data = Record<string, unknown>>(
  options: VerifyWebhookOptions,
): WebhookEvent<Data> {
  const { secret, toleranceSeconds = 300 } = options;
  const payload = typeof options.payload === "string" ? options.payload : options.payload.toString("utf8");
  const header = Array.isArray(options.header) ? options.header[0] : options.header;
  if (typeof header !== "string" || header === "") {
    throw new WebhookVerificationError("malformed_header", `${SIGNATURE_HEADER} is missing`);
  }
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
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, "hex"), expected));
  if (!matches) {
    throw new WebhookVerificationError(
      "bad_signature",
      "the signature does not match this payload and secret",
    );
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError(
      "stale_timestamp",
      `the signature's timestamp is ${now - timestamp} s away from now (tolerance ${toleranceSeconds} s)`,
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(payload);
  } catch {
    throw new WebhookVerificationError("malformed_payload", "the payload is not JSON");
  }
  if (typeof event !== "object" || event === null || typeof (event as WebhookEvent).id !== "string") {
    throw new WebhookVerificationError("malformed_payload", "the payload is not a Floodgate event");
  }
  return event as WebhookEvent<Data>;
}
