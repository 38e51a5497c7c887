// What a refused delivery reports, whichever scheme signed it.
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
