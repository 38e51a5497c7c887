// One call to the API with the SDK's retry rule. A retry repeats the same request, headers included, so a create
// call keeps its Idempotency-Key and cannot create twice. Only what can succeed unchanged is retried: a dropped
// connection, an attempt with no answer within timeoutMs, a 429, a 503 (or a gateway's 502/504) unless its
// problem says `retryable: false`. A business refusal (sold out, out of stock, a validation error) would be
// refused again exactly as it is: it is thrown at once. The caller's `signal` ends the call at any point (the
// request, its socket, the wait before a retry) with the signal's reason.
// Every attempt carries the page's bearer; a 401 token_expired asks the page for a new one ONCE and sends the
// same request again (same Idempotency-Key): the first was refused before it did anything.
import { retryDelayMs, sleep } from "./backoff.ts";
import type { BearerToken } from "./bearer-token.ts";
import { ConnectionError, type Problem, parseRetryAfter, problemError } from "./floodgate-errors.ts";
import { attemptSignal } from "./request-signal.ts";

/** The part of fetch the SDK uses; pass your own (a wrapper that adds tracing headers, a test's). */
export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

export interface ApiEndpoint {
  /** Without a trailing slash; a relative one ("/api") resolves against the page, as fetch does. */
  baseUrl: string;
  fetch: FetchFunction;
  maxRetries: number;
  /** How long one attempt may wait for its whole answer before it counts as a dropped connection. */
  timeoutMs: number;
  /** undefined: no getToken was given, so no Authorization header (a deployment with AUTH=off). */
  token: BearerToken | undefined;
}

export interface ApiCall {
  method?: "GET" | "POST";
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

const RETRIED_STATUSES = [429, 502, 503, 504];

export async function apiRequest<T>(
  api: ApiEndpoint,
  path: string,
  call: ApiCall = {},
  maxRetries = api.maxRetries,
): Promise<T> {
  const { signal } = call;
  const headers: Record<string, string> = { ...call.headers };
  // No content-type on a GET: a browser then sends it as a simple request, without a CORS preflight.
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const init: RequestInit = { method: call.method ?? "GET", headers, body: JSON.stringify(call.body) };
  let refreshed = false;
  let token = await api.token?.current();
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let response: Response | undefined;
    let text = "";
    let failure: unknown;
    const attemptEnd = attemptSignal(api.timeoutMs, signal);
    try {
      response = await api.fetch(api.baseUrl + path, { ...init, signal: attemptEnd.signal });
      text = await response.text();
    } catch (cause) {
      failure = cause;
      response = undefined;
    }
    attemptEnd.done();
    if (response === undefined) {
      signal?.throwIfAborted();
      if (attempt >= maxRetries) {
        throw new ConnectionError(
          attemptEnd.timedOut()
            ? { code: "timeout", title: `No answer within ${api.timeoutMs} ms`, retryable: true }
            : { code: "network_error", title: "The API could not be reached", retryable: true },
          { cause: failure },
        );
      }
      await sleep(retryDelayMs(attempt), signal);
      continue;
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      // Not JSON: a proxy's or load balancer's page. Its text is still the best detail there is.
    }
    if (response.ok) return body as T;
    const status = response.status;
    const problem: Problem =
      body && typeof body === "object"
        ? { ...body, status }
        : { status, title: response.statusText, detail: text.slice(0, 200) };
    const requestId = response.headers.get("x-request-id");
    if (requestId !== null) problem.requestId ??= requestId;
    if (status === 401 && problem.code === "token_expired" && token !== undefined && !refreshed) {
      refreshed = true;
      token = await api.token?.refresh(token);
      attempt--; // not a retry of a failure: the same request, now with a token the server can take
      continue;
    }
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    if (retryAfter !== undefined) problem.retryAfterSeconds ??= retryAfter;
    if (attempt >= maxRetries || !RETRIED_STATUSES.includes(status) || problem.retryable === false) {
      throw problemError(problem);
    }
    await sleep(retryDelayMs(attempt, retryAfter), signal);
  }
}
