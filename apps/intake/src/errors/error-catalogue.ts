// Every error the edge can answer, in one place: a code, an HTTP status, a title and whether retrying the
// same request can succeed. Answers are RFC 9457 problem+json (see problem-plugin.ts).
export const ERRORS = {
  validation_error: { status: 400, title: "The request is not valid", retryable: false },
  malformed_json: { status: 400, title: "The body is not valid JSON", retryable: false },
  invalid_idempotency_key: {
    status: 400,
    title: "Idempotency-Key must be 1-255 visible ASCII characters",
    retryable: false,
  },
  invalid_operation_id: { status: 400, title: "This is not a well-formed operation id", retryable: false },
  unauthorized: {
    status: 401,
    title: "This route needs Authorization: Bearer with a credential it accepts",
    retryable: false,
  },
  invalid_token: {
    status: 401,
    title: "The bearer token is not valid: forged, malformed, or for another issuer or audience",
    retryable: false,
  },
  // Retryable once the caller has a new token: the SDK asks the page for one and repeats the request with
  // the same Idempotency-Key.
  token_expired: { status: 401, title: "The customer token has expired: get a new one", retryable: true },
  forbidden_user: {
    status: 403,
    title: "A customer token acts only for its own user: userId names someone else",
    retryable: false,
  },
  forbidden_caller: { status: 403, title: "This kind of caller may not use this route", retryable: false },
  // A room with joins "server": the shop's own checks (bot, multi-account) run before a place is given.
  room_joins_server_only: {
    status: 403,
    title: "This waiting room takes joins only from the shop's server",
    retryable: false,
  },
  // A join's pass (POST /v1/rooms/:roomId/passes): refused whole, nothing written; the join without it is taken.
  join_pass_invalid: {
    status: 403,
    title: "The join pass is not valid: malformed, not signed by this deployment, tampered with or expired",
    retryable: false,
  },
  join_pass_mismatch: {
    status: 403,
    title: "The join pass was minted for another user or another room",
    retryable: false,
  },
  not_open: { status: 403, title: "This coupon is not open for issue now", retryable: false },
  // Not retryable as it is: the client must join the room (joinUrl) and come back with its admission token.
  waiting_room_required: {
    status: 403,
    title: "A waiting room guards this route: join it and send the admission token it gives",
    retryable: false,
  },
  // A one-shot room's token serves one accepted request; a retry of that request (same Idempotency-Key) replays.
  admission_used: {
    status: 403,
    title: "This admission token was already used: the room admits one request per admission",
    retryable: false,
  },
  not_found: { status: 404, title: "Not found", retryable: false },
  // Refunds are refused on the payment's shard: these are a refund's failureReason (GET /v1/refunds/:id).
  payment_not_found: { status: 404, title: "No such payment on its shard", retryable: false },
  payment_not_succeeded: {
    status: 409,
    title: "This payment did not succeed: there is nothing to refund",
    retryable: false,
  },
  refund_exceeds_payment: {
    status: 409,
    title: "The refund is larger than what the payment still has to give back",
    retryable: false,
  },
  restock_not_possible: {
    status: 409,
    title: "Only a refund that refunds an order's payment in full can return its units to stock",
    retryable: false,
  },
  // A provider payment is refused on its order's shard: these are its failureReason (GET
  // /v1/provider-payments/:id), each but reference_used raising order.provider_payment_orphaned.
  order_not_payable: {
    status: 409,
    title: "This order no longer awaits payment: it expired or was cancelled first",
    retryable: false,
  },
  order_already_paid: {
    status: 409,
    title: "This order was already paid by another payment",
    retryable: false,
  },
  amount_mismatch: { status: 409, title: "The amount paid is not the order's amount", retryable: false },
  reference_used: {
    status: 409,
    title: "This provider reference already paid another order",
    retryable: false,
  },
  provider_payment_not_refundable: {
    status: 422,
    title: "An order paid at the shop's payment provider is refunded there, not by Floodgate",
    retryable: false,
  },
  already_issued: { status: 409, title: "This user already holds this coupon", retryable: false },
  out_of_stock: { status: 409, title: "Not enough stock for every line of this order", retryable: false },
  coupon_already_used: {
    status: 409,
    title: "This coupon was already redeemed by another order",
    retryable: false,
  },
  // Not retryable as it is: the user must pay or cancel an order of the product first (or ask for fewer).
  unit_limit_exceeded: {
    status: 409,
    title: "This order would take the units this user holds unpaid of a product past its per-user limit",
    retryable: false,
  },
  order_not_cancellable: { status: 409, title: "This order has already ended", retryable: false },
  room_guard_conflict: {
    status: 409,
    title: "Another active room already guards one of these route classes",
    retryable: false,
  },
  // A product or coupon sold behind one active room at most: the request could not say which to check.
  room_sale_conflict: {
    status: 409,
    title: "Another active room already guards one of these products or coupons",
    retryable: false,
  },
  // Not retryable as it is: each room's products are ordered apart, each with that room's admission.
  order_spans_rooms: {
    status: 409,
    title: "This order names products of two waiting rooms: order each room's products separately",
    retryable: false,
  },
  sold_out: { status: 410, title: "This coupon is sold out", retryable: false },
  // A sale's room with nothing left to sell and no unpaid unit that could come back; a restock reopens it.
  room_sold_out: { status: 410, title: "This room's sale is sold out", retryable: false },
  // A room past its endsAt; a later endsAt (or none) reopens it.
  room_closed: { status: 410, title: "This waiting room is closed", retryable: false },
  // A WebSocket route asked for without an upgrade: the resource exists, but only as a socket.
  upgrade_required: {
    status: 426,
    title: "This route is a WebSocket: open it with Upgrade: websocket",
    retryable: false,
  },
  body_too_large: { status: 413, title: "The body is larger than 16 KiB", retryable: false },
  unsupported_media_type: { status: 415, title: "Send the body as application/json", retryable: false },
  idempotency_key_reused: {
    status: 422,
    title: "This Idempotency-Key was already used with a different request",
    retryable: false,
  },
  currency_mismatch: { status: 422, title: "This deployment takes another currency", retryable: false },
  coupon_not_yours: { status: 422, title: "This coupon was issued to another user", retryable: false },
  amount_too_large: {
    status: 422,
    title: "The order's amount is above the largest allowed",
    retryable: false,
  },
  // The URL is well-formed but its host is (or resolves to) a private network: no SSRF into the shop's.
  webhook_url_refused: {
    status: 422,
    title: "Webhooks are not sent to private, loopback or link-local addresses",
    retryable: false,
  },
  rate_limited: { status: 429, title: "Too many requests: wait Retry-After seconds", retryable: true },
  service_unavailable: { status: 503, title: "Temporarily unable to accept requests", retryable: true },
  overloaded: {
    status: 503,
    title: "The backlog is longer than this deployment takes new work for; retry later",
    retryable: true,
  },
  busy: {
    status: 503,
    title: "This intake is taking more requests than it can answer in time; retry after Retry-After seconds",
    retryable: true,
  },
  // 503, not 401: no key can succeed until an operator sets one, and a client must not take it for a bad key.
  admin_disabled: {
    status: 503,
    title: "The admin API is disabled: this deployment has no ADMIN_API_KEY",
    retryable: false,
  },
  // An operator's incident switch (method reject): not retryable as it is, the operator decides when it ends.
  room_rejecting: {
    status: 503,
    title: "This waiting room is refusing everyone for now",
    retryable: false,
  },
  coupon_state_missing: {
    status: 503,
    title: "This coupon's issue state is missing from Redis; an operator must restore it",
    retryable: true,
  },
  // Not retryable: the change is in Postgres already, so repeating it would create the product twice or add
  // its stock twice. Reconcile brings Redis up to Postgres.
  product_state_not_written: {
    status: 503,
    title: "Stored in Postgres, but Redis could not be updated; reconcile will bring it up to date",
    retryable: false,
  },
  internal_error: { status: 500, title: "Internal error", retryable: true },
} as const satisfies Record<string, { status: number; title: string; retryable: boolean }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ProblemExtras {
  detail?: string;
  field?: string;
  /** `pointer` (a JSON pointer into the body) only for body fields. */
  errors?: { field: string; pointer?: string; detail: string }[];
  existingId?: string;
  /**
   * out_of_stock: every line that could not be reserved (`available`); unit_limit_exceeded: each product over
   * its per-user limit, on its first line (`held`, `limit`).
   */
  lines?: (
    | { line: number; productId: string; requested: number; available: number }
    | { line: number; productId: string; requested: number; held: number; limit: number }
  )[];
  retryAfterSeconds?: number;
  /**
   * waiting_room_required: the room to join, its join URL, and why the request's admission did not count;
   * admission_used: the same, reason "used".
   */
  roomId?: string;
  joinUrl?: string;
  reason?: string;
  /** order_spans_rooms: the rooms whose products the order names. */
  rooms?: string[];
  /** Response headers that belong to the problem (e.g. WWW-Authenticate on a 401); not in the body. */
  headers?: Record<string, string>;
}

export class ProblemError extends Error {
  readonly code: ErrorCode;
  readonly extras: ProblemExtras;
  constructor(code: ErrorCode, extras: ProblemExtras = {}) {
    super(extras.detail ?? ERRORS[code].title);
    this.name = "ProblemError";
    this.code = code;
    this.extras = extras;
  }
}
