// Every refusal Floodgate answers is RFC 9457 problem+json; these turn one into an Error a page can branch on by
// class (`instanceof SoldOutError`) or by `code`. An operation that was accepted and then failed (a payment the
// wallet could not cover) becomes one too, and so does a network that stayed down through every retry, so a page
// handles one error shape whichever way a checkout went wrong. Every one says whether the same request may
// still succeed (`retryable`, the server's own flag when it sent one) and which request it was (`requestId`).

export interface Problem {
  type?: string;
  title?: string;
  /** The HTTP status; absent for an operation that was accepted and failed later. */
  status?: number;
  detail?: string;
  code?: string;
  retryable?: boolean;
  field?: string;
  errors?: { field: string; pointer?: string; detail: string }[];
  /** already_issued, idempotency_key_reused, coupon_already_used: what already exists. */
  existingId?: string;
  /** out_of_stock: every line that could not be reserved. */
  lines?: { line: number; productId: string; requested: number; available: number }[];
  /** waiting_room_required: the room to join, its join path (relative to the API) and why. */
  roomId?: string;
  joinUrl?: string;
  reason?: string;
  /** rate_limited and other retryable refusals: the server's Retry-After, in seconds. */
  retryAfterSeconds?: number;
  /** The server's id of the request, when it sent one: what its logs know the refusal by. */
  requestId?: string;
  /** A final failure: the operation's view as the server last showed it. */
  operation?: unknown;
  [extension: string]: unknown;
}

export class FloodgateError extends Error {
  /** The problem's code, a failed operation's failureReason, or http_<status> when the body was not a problem. */
  readonly code: string;
  /** The HTTP status of a refusal; undefined when the request never got an answer or the operation failed later. */
  readonly status: number | undefined;
  readonly problem: Problem;
  /** The server's request id, when the refusal carried one (its body or an X-Request-Id header). */
  readonly requestId: string | undefined;
  /** Whether sending the same request again (same Idempotency-Key) may succeed: the problem's own flag, else
   * true for a 429, a 5xx and a request that got no answer. The SDK already retried it maxRetries times. */
  readonly retryable: boolean;

  constructor(problem: Problem, options?: { cause?: unknown }) {
    const code = problem.code ?? `http_${problem.status}`;
    super(problem.detail ?? problem.title ?? code, options);
    this.name = "FloodgateError";
    this.code = code;
    this.status = problem.status;
    this.problem = problem;
    this.requestId = problem.requestId;
    const status = problem.status ?? 0;
    this.retryable = problem.retryable ?? (status === 429 || status >= 500);
  }
}

/** 429 rate_limited, still after the SDK's retries: `retryAfterSeconds` is the server's pacing. */
export class RateLimitError extends FloodgateError {
  override name = "RateLimitError";
  readonly retryAfterSeconds = this.problem.retryAfterSeconds;
}

/** No answer: the API could not be reached or the connection dropped (`network_error`, the fetch error as
 * `cause`), or no answer came within timeoutMs (`timeout`), on every attempt. `retryable`: the request may or may
 * not have arrived, and sending it again with the same Idempotency-Key cannot create twice. */
export class ConnectionError extends FloodgateError {
  override name = "ConnectionError";
}

/** 422 idempotency_key_reused: this Idempotency-Key was first used for a different request (another amount,
 * another user); `existingId` is the operation it created. A new operation needs a new key. */
export class IdempotencyConflictError extends FloodgateError {
  override name = "IdempotencyConflictError";
  readonly existingId = this.problem.existingId;
}

/** 409 out_of_stock: `lines` says what was asked for and what was left, per line. */
export class OutOfStockError extends FloodgateError {
  override name = "OutOfStockError";
  readonly lines = this.problem.lines ?? [];
}

/** 410 sold_out: every unit of the coupon is issued. */
export class SoldOutError extends FloodgateError {
  override name = "SoldOutError";
}

/** room_sold_out: the waiting room's sale has nothing left to sell (every unit paid for, none reserved that could
 * come back). A join answers it as a 410; a shopper already waiting is told it by the room and the SDK stops
 * waiting with this error. Restocking reopens the room. */
export class RoomSoldOutError extends FloodgateError {
  override name = "RoomSoldOutError";
}

/** 409 already_issued: this user already holds the coupon (`existingId` is that issue). */
export class AlreadyIssuedError extends FloodgateError {
  override name = "AlreadyIssuedError";
  readonly existingId = this.problem.existingId;
}

/** A payment that ended failed because the wallet could not cover it (`problem.operation` is the payment). */
export class InsufficientFundsError extends FloodgateError {
  override name = "InsufficientFundsError";
}

/** 400 or 422: the request as it is can never succeed; `field` names the first field at fault. */
export class ValidationError extends FloodgateError {
  override name = "ValidationError";
  readonly field = this.problem.field;
}

/** 401 unauthorized, invalid_token or token_expired: the bearer was missing, refused, or still expired after the
 * one refresh the SDK asks getToken() for. Sign the shopper in again. */
export class AuthenticationError extends FloodgateError {
  override name = "AuthenticationError";
}

/** 403 forbidden_user (a userId other than the token's own) or forbidden_caller (a shopper's token where only a
 * server key may act, e.g. a deposit). */
export class PermissionError extends FloodgateError {
  override name = "PermissionError";
}

const TYPED: Record<string, typeof FloodgateError> = {
  rate_limited: RateLimitError,
  idempotency_key_reused: IdempotencyConflictError,
  forbidden_user: PermissionError,
  forbidden_caller: PermissionError,
  out_of_stock: OutOfStockError,
  sold_out: SoldOutError,
  room_sold_out: RoomSoldOutError,
  already_issued: AlreadyIssuedError,
  insufficient_funds: InsufficientFundsError,
};

/** The error class a problem maps to: by code first, then any 401 is an authentication error, any 400 or 422 a
 * validation error and any 429 a rate limit. */
export function problemError(problem: Problem): FloodgateError {
  const status = problem.status;
  const Type =
    TYPED[problem.code ?? ""] ??
    (status === 401
      ? AuthenticationError
      : status === 400 || status === 422
        ? ValidationError
        : status === 429
          ? RateLimitError
          : FloodgateError);
  return new Type(problem);
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = /^\s*\d+\s*$/.test(value) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
  return seconds >= 0 ? seconds : seconds < 0 ? 0 : undefined;
}
