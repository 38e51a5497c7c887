// The few parts of autocannon 8 the bench uses. autocannon ships no types and @types/autocannon is not a
// dependency; this declaration covers exactly what load-runner.ts touches.
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export type RequestContext = Record<string, unknown>;

  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  export interface Request extends RequestParams {
    /** Called before each request on a connection; returning undefined skips to the next request. */
    setupRequest?: (request: RequestParams, context: RequestContext) => RequestParams | undefined;
    /** Called with the whole response body; only used with pipelining 1, so it matches the request. */
    onResponse?: (
      status: number,
      body: string,
      context: RequestContext,
      headers: Record<string, string>,
    ) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds; ignored when `amount` is set. */
    duration?: number;
    /** Total requests, after which the run ends. */
    amount?: number;
    /** Requests per second across all connections (each connection gets an equal share per second). */
    overallRate?: number;
    /** Seconds before a request is counted as a timeout and its connection is reopened. */
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    requests?: Request[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    total: number;
  }

  export interface Result {
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
    on(event: "tick", listener: (tick: { counter: number; bytes: number }) => void): this;
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default function autocannon(options: Options): Instance;
}
