// The gate in Node's http, Express and Fastify: each adapter asks the core (admission-gate.ts) and applies its
// decision; none decides anything. Structural types stand in for Express's and Fastify's, so the package
// depends on neither. The admission of a request that passed is kept beside it, read with admissionOf(req).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AdmissionClaims } from "./admission-claims.ts";
import type { GateDecision } from "./admission-gate.ts";

interface Decider {
  decide(request: IncomingMessage): Promise<GateDecision>;
}

export type NodeRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;
export type ExpressMiddleware = (
  request: IncomingMessage,
  response: ServerResponse,
  next: (error?: unknown) => void,
) => void;
export type FastifyOnRequestHook = (request: FastifyLikeRequest, reply: FastifyLikeReply) => Promise<unknown>;

const admissions = new WeakMap<object, AdmissionClaims>();

/** The admission a request passed the gate with (null for a request the gate does not guard, or none). */
export function admissionOf(request: IncomingMessage | { raw: IncomingMessage }): AdmissionClaims | null {
  const raw = "raw" in request ? request.raw : request;
  return admissions.get(raw) ?? null;
}

function passed(request: IncomingMessage, decision: GateDecision & { pass: true }): void {
  if (decision.admission !== null) admissions.set(request, decision.admission);
}

function send(response: ServerResponse, decision: GateDecision & { pass: false }): void {
  response.writeHead(decision.status, decision.headers);
  response.end(decision.body);
}

/** node:http: `createServer(gate.node((req, res) => ...))`, the handler reached only by those let through. */
export function nodeHandler(gate: Decider, handler: NodeRequestHandler): NodeRequestHandler {
  return (request, response) => {
    gate.decide(request).then(
      (decision) => {
        if (!decision.pass) return send(response, decision);
        passed(request, decision);
        handler(request, response);
      },
      (error: unknown) => {
        response.writeHead(500).end();
        queueMicrotask(() => {
          throw error;
        });
      },
    );
  };
}

/** Express (and Connect): `app.use(gate.express())`. */
export function expressMiddleware(gate: Decider): ExpressMiddleware {
  return (request, response, next) => {
    gate.decide(request).then((decision) => {
      if (!decision.pass) return send(response, decision);
      passed(request, decision);
      next();
    }, next);
  };
}

export interface FastifyLikeRequest {
  raw: IncomingMessage;
}
export interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  headers(values: Record<string, string | string[]>): FastifyLikeReply;
  send(body: string): FastifyLikeReply;
}

/** Fastify: `app.addHook("onRequest", gate.fastify())` (or in one plugin's scope, for its routes only). */
export function fastifyHook(gate: Decider): FastifyOnRequestHook {
  return async (request, reply) => {
    const decision = await gate.decide(request.raw);
    if (decision.pass) return passed(request.raw, decision);
    // Returning the reply tells Fastify the hook answered.
    return reply.code(decision.status).headers(decision.headers).send(decision.body);
  };
}
