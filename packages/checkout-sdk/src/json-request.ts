// One JSON call to the API with the SDK's retry rule, shared by the client and the waiting room. A retry repeats
// the same request, headers included, so a create call keeps its Idempotency-Key and cannot create twice. Only
// what can succeed unchanged is retried: a network error, a 429, a 5xx the server says is retryable.
import { delay } from "./abortable-delay.ts";
import { backoffDelayMs } from "./backoff.ts";
import { FloodgateProblemError } from "./problem-error.ts";

/** The part of fetch the SDK uses; pass your own (a test double, a wrapper that adds tracing headers). */
export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

export interface ApiEndpoint {
  /** e.g. https://api.shop.example or http://127.0.0.1:3000 (a trailing slash is ignored). */
  baseUrl: string;
  fetch: FetchFunction;
}

export interface JsonRequest {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  maxRetries: number;
  signal?: AbortSignal;
}

export interface JsonAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

// A Retry-After of a minute (an overloaded deployment) must not freeze a checkout button for a minute.
export const MAX_RETRY_WAIT_MS = 10_000;
const NETWORK_BACKOFF = { baseMs: 200, maxMs: 2_000 };

export function endpointOf(baseUrl: string, fetchFunction?: FetchFunction): ApiEndpoint {
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    // Called through globalThis: a browser's fetch called as a method of another object throws "Illegal invocation".
    fetch: fetchFunction ?? ((url, init) => globalThis.fetch(url, init)),
  };
}

export async function requestJson<T>(endpoint: ApiEndpoint, request: JsonRequest): Promise<JsonAnswer<T>> {
  const headers: Record<string, string> = { ...request.headers };
  // No content-type on a GET: a browser then sends it as a simple request, without a CORS preflight.
  if (request.body !== undefined) headers["content-type"] = "application/json";
  const init: RequestInit = {
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: request.signal,
  };
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await endpoint.fetch(endpoint.baseUrl + request.path, init);
    } catch (error) {
      if (request.signal?.aborted || attempt >= request.maxRetries) throw error;
      await delay(backoffDelayMs(attempt + 1, NETWORK_BACKOFF), request.signal);
      continue;
    }
    if (response.ok) {
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : {}) as T,
      };
    }
    const problem = await FloodgateProblemError.fromResponse(response);
    if (!isWorthRetrying(problem) || attempt >= request.maxRetries) throw problem;
    await delay(retryWaitMs(problem, attempt + 1), request.signal);
  }
}

/** 429 and retryable 5xx only: any other 4xx would be refused again exactly as it is. */
export function isWorthRetrying(problem: FloodgateProblemError): boolean {
  return (problem.status === 429 || problem.status >= 500) && problem.retryable;
}

function retryWaitMs(problem: FloodgateProblemError, failures: number): number {
  if (problem.retryAfterSeconds === undefined) return backoffDelayMs(failures, NETWORK_BACKOFF);
  return Math.min(MAX_RETRY_WAIT_MS, problem.retryAfterSeconds * 1000);
}
