// A shop's check of one delivery, whichever scheme its endpoint uses: given the request's headers it finds the
// Standard Webhooks ones or Floodgate-Signature, so a receiver keeps verifying while its endpoint is switched
// from one to the other (PATCH signatureScheme).
import {
  checkStandardSignature,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "./standard-webhooks.ts";
import { checkFloodgateSignature, SIGNATURE_HEADER } from "./webhook-signature.ts";
import { WebhookVerificationError } from "./webhook-verification-error.ts";

export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  data: Data;
}

/** Node's `req.headers` (lower-case names), a plain object, or a fetch `Headers`. */
export type WebhookRequestHeaders =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received (a re-serialised object would not match). */
  payload: string | Buffer;
  /** All the request's headers: either scheme is verified, whichever the delivery carries. */
  headers?: WebhookRequestHeaders;
  /** The Floodgate-Signature header alone (the original scheme); read only when `headers` is not given. */
  header?: string | string[] | undefined;
  /** The endpoint's `whsec_...` secret. */
  secret: string;
  /** How old (or how far ahead) a timestamp may be; 300 s by default. */
  toleranceSeconds?: number;
  /** Unix seconds to judge the timestamp against (tests); the clock by default. */
  now?: number;
}

function headerOf(headers: WebhookRequestHeaders, name: string): string | undefined {
  if (typeof headers.get === "function")
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The parsed event of a genuine, fresh delivery; a WebhookVerificationError otherwise. */
export function verifyWebhook<Data = Record<string, unknown>>(
  options: VerifyWebhookOptions,
): WebhookEvent<Data> {
  const { secret, toleranceSeconds = 300 } = options;
  const payload = typeof options.payload === "string" ? options.payload : options.payload.toString("utf8");
  let timestamp: number;
  const standard = options.headers && headerOf(options.headers, WEBHOOK_SIGNATURE_HEADER);
  if (options.headers && standard) {
    timestamp = checkStandardSignature(
      {
        id: headerOf(options.headers, WEBHOOK_ID_HEADER),
        timestamp: headerOf(options.headers, WEBHOOK_TIMESTAMP_HEADER),
        signature: standard,
      },
      payload,
      secret,
    );
  } else {
    const header = options.headers
      ? headerOf(options.headers, SIGNATURE_HEADER)
      : Array.isArray(options.header)
        ? options.header[0]
        : options.header;
    if (typeof header !== "string" || header === "") {
      throw new WebhookVerificationError(
        "malformed_header",
        options.headers
          ? `neither ${WEBHOOK_SIGNATURE_HEADER} nor ${SIGNATURE_HEADER} is there`
          : `${SIGNATURE_HEADER} is missing`,
      );
    }
    timestamp = checkFloodgateSignature(header, payload, secret);
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
