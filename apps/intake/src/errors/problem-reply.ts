// A problem as the client receives it (RFC 9457 problem+json): the body, shared by HTTP replies, WebSocket
// refusals and the raw load-shedding listener, and the reply that sends it with its status and headers.
import type { FastifyReply, FastifyRequest } from "fastify";
import { REQUEST_ID_HEADER } from "../request-ids/request-id.ts";
import { ERRORS, type ErrorCode, type ProblemExtras } from "./error-catalogue.ts";

/** The RFC 9457 body of a problem: what an HTTP reply sends and what a WebSocket refusal carries. */
export function problemBody(code: ErrorCode, extras: ProblemExtras, instance: string, requestId?: string) {
  const entry = ERRORS[code];
  const { retryAfterSeconds: _, headers: __, ...rest } = extras;
  const detail = extras.detail ?? entry.title;
  // A client reads field errors from one place, `errors[]`, whatever refused the request.
  if (extras.field !== undefined && extras.errors === undefined)
    rest.errors = [{ field: extras.field, detail }];
  return {
    type: `/problems/${code.replaceAll("_", "-")}`,
    title: entry.title,
    status: entry.status,
    code,
    retryable: entry.retryable,
    instance,
    ...rest,
    detail,
    // The id to quote to an operator: the same as the x-request-id header and the log lines' reqId.
    ...(requestId === undefined ? {} : { requestId }),
  };
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  extras: ProblemExtras = {},
) {
  if (extras.retryAfterSeconds !== undefined) reply.header("Retry-After", String(extras.retryAfterSeconds));
  for (const [name, value] of Object.entries(extras.headers ?? {})) reply.header(name, value);
  // Also here: the router's refusals (app.ts frameworkErrors) run no onRequest hook to set it.
  reply.header(REQUEST_ID_HEADER, request.id);
  return reply
    .code(ERRORS[code].status)
    .type("application/problem+json")
    .send(problemBody(code, extras, request.url, request.id));
}
