// The cheapest refusal the intake can give: while the load shedder refuses, a POST to one of the API's write
// routes is answered `503 busy` by the HTTP server's request listener, before Fastify builds a request, routes
// it or runs a hook. Under a burst these refusals are most of what the process answers, and at about half the
// CPU of a refusal through Fastify (wrk, one process: a bare Node server answering this 503 did 77k/s, the
// intake refusing through its hooks, a 401, 35k/s), the same cores answer every request instead of leaving
// them queued in their sockets.
//
// Everything else the shedder refuses (reads, parameterised routes, browser calls that need CORS headers) goes
// through the plugin's onRequest hook, with the same body. What is answered here skips the per-route latency
// histogram; it is counted in floodgate_intake_shed_requests_total like every shed call.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { FastifyServerFactory, FastifyServerOptions } from "fastify";
import { problemBody } from "../errors/problem-reply.ts";
import { REQUEST_ID_HEADER, requestIdFor } from "../request-ids/request-id.ts";
import type { LoadShedder } from "./load-shedder.ts";

/** What the raw listener needs: filled in by the plugin once the routes and metrics exist. */
export interface RawShedding {
  shedder: LoadShedder;
  /** Paths of POST API routes without parameters (`/v1/payments`): the hot write routes. */
  postPaths: Set<string>;
  onShed: () => void;
}

/** Set on a request the listener already judged and admitted: the plugin's hook must not roll for it again
 * (two rolls would admit share² of the hot POSTs, and refuse some through Fastify after all). */
const JUDGED = Symbol("floodgate.shed-judged");

export function wasJudged(request: IncomingMessage): boolean {
  return (request as IncomingMessage & { [JUDGED]?: true })[JUDGED] === true;
}

export function rawShedding(shedder: LoadShedder): RawShedding {
  return { shedder, postPaths: new Set(), onShed: () => {} };
}

export function shedResponseBody(shedder: LoadShedder, url: string, requestId: string): string {
  return JSON.stringify(problemBody("busy", { detail: shedder.detail() }, url, requestId));
}

function isRawSheddable(request: IncomingMessage, postPaths: Set<string>): boolean {
  if (request.method !== "POST" || request.headers.origin !== undefined) return false;
  const url = request.url ?? "";
  const query = url.indexOf("?");
  return postPaths.has(query === -1 ? url : url.slice(0, query));
}

function refuse(request: IncomingMessage, response: ServerResponse, shedding: RawShedding): void {
  shedding.onShed();
  const requestId = requestIdFor(request);
  const body = shedResponseBody(shedding.shedder, request.url ?? "/", requestId);
  // The body is not read: Node discards what is left of it before the connection's next request.
  response.writeHead(503, {
    "content-type": "application/problem+json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "retry-after": "1",
    [REQUEST_ID_HEADER]: requestId,
  });
  response.end(body);
}

/**
 * Fastify's serverFactory: the HTTP/1 server Fastify would make (same timeouts), with the shedding check in
 * front of Fastify's handler.
 */
export function sheddingServerFactory(shedding: RawShedding): FastifyServerFactory {
  return (handler, options: FastifyServerOptions) => {
    const server = http.createServer(
      (options as { http?: http.ServerOptions }).http ?? {},
      (request, response) => {
        if (shedding.shedder.admitShare < 1 && isRawSheddable(request, shedding.postPaths)) {
          if (shedding.shedder.shouldShed()) {
            refuse(request, response, shedding);
            return;
          }
          (request as IncomingMessage & { [JUDGED]?: true })[JUDGED] = true;
        }
        handler(request, response);
      },
    );
    // As Fastify sets them on the server it makes itself (lib/server.js).
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) {
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    }
    return server;
  };
}
