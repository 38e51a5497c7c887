import type { OperationIdParams, RefundRequest } from "@floodgate/domain";
import {
  operationIdParamsSchema,
  problemResponseSchema,
  refundAcceptedResponseSchema,
  refundRequestSchema,
  refundResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { requireServer } from "../auth/caller.ts";
import { acceptRefund, refundIdempotencyKey } from "../refunds/accept-refund.ts";
import { readRefund } from "../refunds/read-refund.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function refundsRoute(app: FastifyInstance) {
  app.post<{ Body: RefundRequest }>(
    "/v1/refunds",
    {
      schema: {
        operationId: "createRefund",
        summary: "Give back (part of) a succeeded payment (the shop's server only)",
        tags: ["Refunds"],
        documented: { location: "/v1/refunds/{id}", idempotent: "required" },
        body: refundRequestSchema,
        response: { 202: refundAcceptedResponseSchema, ...problems },
      },
    },
    (request, reply) => {
      // Money leaves the shop only because the shop decided it: never from a browser.
      requireServer(request.caller, "a refund");
      return acceptRefund(request, reply, request.body, refundIdempotencyKey(request));
    },
  );

  app.get<{ Params: OperationIdParams }>(
    "/v1/refunds/:id",
    {
      schema: {
        operationId: "getRefund",
        summary: "A refund and its status (the shop's server only)",
        tags: ["Refunds"],
        params: operationIdParamsSchema,
        response: { 200: refundResponseSchema, ...problems },
      },
    },
    async (request) => {
      requireServer(request.caller, "reading a refund");
      return readRefund(app, request.params.id);
    },
  );
}
