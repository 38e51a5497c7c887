import type { OperationIdParams, PaymentRequest } from "@floodgate/domain";
import {
  acceptedResponseSchema,
  operationIdParamsSchema,
  operationResponseSchema,
  paymentRequestSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { actingUser, visibleTo } from "../auth/caller.ts";
import { acceptOperation } from "../operations/accept-operation.ts";
import { readOperation } from "../operations/read-operation.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function paymentsRoute(app: FastifyInstance) {
  app.post<{ Body: PaymentRequest }>(
    "/v1/payments",
    {
      schema: {
        operationId: "createPayment",
        summary: "Pay from a user's wallet (or pay an order)",
        tags: ["Payments"],
        documented: { location: "/v1/payments/{id}", admission: "payments", idempotent: true },
        body: paymentRequestSchema,
        response: { 202: acceptedResponseSchema, ...problems },
      },
    },
    (request, reply) => {
      const { body } = request;
      // Named one by one, not spread: the schema allows no other field, and a copy by name is cheaper.
      acceptOperation(request, reply, {
        kind: "payment",
        userId: actingUser(request.caller, body.userId),
        amount: body.amount,
        currency: body.currency,
        orderId: body.orderId,
      });
    },
  );

  app.get<{ Params: OperationIdParams }>(
    "/v1/payments/:id",
    {
      schema: {
        operationId: "getPayment",
        summary: "A payment and its status",
        tags: ["Payments"],
        params: operationIdParamsSchema,
        response: { 200: operationResponseSchema, ...problems },
      },
    },
    async (request) =>
      visibleTo(
        request.caller,
        await readOperation(app, "payment", request.params.id),
        "id",
        `payment ${request.params.id}`,
      ),
  );
}
