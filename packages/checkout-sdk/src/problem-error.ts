// Every refusal Floodgate answers is RFC 9457 problem+json; this turns one into an Error a shop page can branch
// on (`code`) and act on (`roomId`/`joinUrl` for a waiting room, `retryAfterSeconds` for a 429 or 503). A
// proxy's HTML 502 still becomes one, so a page never has to handle two error shapes.

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  retryable?: boolean;
  field?: string;
  errors?: { field: string; pointer?: string; detail: string }[];
  existingId?: string;
  roomId?: string;
  joinUrl?: string;
  reason?: string;
  [extension: string]: unknown;
}

// Statuses a gateway in front of the intake answers on its own, without a problem body: worth retrying.
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

export class FloodgateProblemError extends Error {
  readonly status: number;
  /** The problem's `code`, or `http_<status>` when the body was not problem+json. */
  readonly code: string;
  readonly detail: string | undefined;
  readonly retryable: boolean;
  readonly field: string | undefined;
  readonly errors: Problem["errors"];
  /** idempotency_key_reused, already_issued, coupon_already_used: the operation that already exists. */
  readonly existingId: string | undefined;
  /** waiting_room_required: the room to join, its join path (relative to the API's base URL) and why. */
  readonly roomId: string | undefined;
  readonly joinUrl: string | undefined;
  readonly reason: string | undefined;
  /** From the Retry-After header (429, 503). */
  readonly retryAfterSeconds: number | undefined;
  readonly problem: Problem;

  constructor(status: number, problem: Problem, retryAfterSeconds?: number) {
    const code = problem.code ?? `http_${status}`;
    super(`${status} ${code}: ${problem.detail ?? problem.title ?? "request refused"}`);
    this.name = "FloodgateProblemError";
    this.status = status;
    this.code = code;
    this.detail = problem.detail;
    this.retryable = problem.retryable ?? TRANSIENT_STATUSES.has(status);
    this.field = problem.field;
    this.errors = problem.errors;
    this.existingId = problem.existingId;
    this.roomId = problem.roomId;
    this.joinUrl = problem.joinUrl;
    this.reason = problem.reason;
    this.retryAfterSeconds = retryAfterSeconds;
    this.problem = problem;
  }

  /** Reads the body of a failed response (it must not have been read yet). */
  static async fromResponse(response: Response): Promise<FloodgateProblemError> {
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    const text = await response.text().catch(() => "");
    return new FloodgateProblemError(response.status, parseProblem(text, response), retryAfter);
  }
}

function parseProblem(text: string, response: Response): Problem {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Problem;
  } catch {
    // Not JSON: a proxy's or load balancer's page. Its text is still the best detail there is.
  }
  const detail = text.trim().slice(0, 200) || response.statusText || undefined;
  return { status: response.status, title: response.statusText || `HTTP ${response.status}`, detail };
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
