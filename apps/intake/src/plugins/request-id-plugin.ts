// Echoes the request id (request-id.ts) on every answer, so a caller can quote it and an operator find the
// request's log lines. Problem bodies carry it too (problem-reply.ts), and sendProblem sets the header
// itself for the router's refusals, which run no hooks; a WebSocket's 101 gets it in websocket-plugin.ts.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { REQUEST_ID_HEADER } from "../request-ids/request-id.ts";

export const requestIdPlugin = fp(async (app: FastifyInstance) => {
  // Callback style: no promise per request on the hot path for one header.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
});
