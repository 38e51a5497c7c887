// POST /v1/orders/:orderId/provider-payments, GET /v1/provider-payments/:id: an order paid at the shop's own
// payment provider (no wallet). Accepting is one Redis script call and no Postgres; reading goes to the
// order's shard (the id names it). The shop's server key only: the shop tells what its provider confirmed.
import type { OperationIdParams, OrderIdParams, ProviderPaymentRequest } from "@floodgate/domain";
import {
  operationIdParamsSchema,
  orderIdParamsSchema,
  problemResponseSchema,
  providerPaymentAcceptedResponseSchema,
  providerPaymentRequestSchema,
  providerPaymentResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { requireServer } from "../auth/caller.ts";
import {
  acceptProviderPayment,
  providerPaymentIdempotencyKey,
} from "../provider-payments/accept-provider-payment.ts";
import { readProviderPayment } from "../provider-payments/read-provider-payment.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function providerPaymentsRoute(app: FastifyInstance) {
  app.post<{ Params: OrderIdParams; Body: ProviderPaymentRequest }>(
    "/v1/orders/:orderId/provider-payments",
    {
      schema: {
        operationId: "createProviderPayment",
        summary:
          "Mark an order paid by a charge the shop's payment provider confirmed (the shop's server only)",
        tags: ["Orders"],
        documented: {
          location: "/v1/provider-payments/{id}",
          idempotent: "required",
          answers: {
            202: "Accepted: the worker marks the order paid, or fails the payment with a failureReason (GET the Location). A failure other than reference_used and order_not_found raises order.provider_payment_orphaned: refund the charge at the provider.",
            400: "validation_error (a field, or a missing Idempotency-Key), invalid_idempotency_key or malformed_json; nothing was stored.",
            403: "forbidden_caller: only the shop's server key reports provider payments.",
            422: "idempotency_key_reused: this key was sent before for another order, charge or amount (`existingId`).",
          },
        },
        params: orderIdParamsSchema,
        body: providerPaymentRequestSchema,
        response: {
          202: providerPaymentAcceptedResponseSchema,
          400: problemResponseSchema,
          403: problemResponseSchema,
          422: problemResponseSchema,
          ...problems,
        },
      },
    },
    (request, reply) => {
      requireServer(request.caller, "a provider payment");
      return acceptProviderPayment(
        request,
        reply,
        request.params.orderId,
        request.body,
        providerPaymentIdempotencyKey(request),
      );
    },
  );

  app.get<{ Params: OperationIdParams }>(
    "/v1/provider-payments/:id",
    {
      schema: {
        operationId: "getProviderPayment",
        summary: "A provider payment and its status (the shop's server only)",
        tags: ["Orders"],
        documented: {
          answers: {
            400: "invalid_operation_id: not an id this API mints.",
            403: "forbidden_caller: only the shop's server key reads provider payments.",
            404: "not_found: no provider payment with this id.",
          },
        },
        params: operationIdParamsSchema,
        response: {
          200: providerPaymentResponseSchema,
          400: problemResponseSchema,
          403: problemResponseSchema,
          404: problemResponseSchema,
          ...problems,
        },
      },
    },
    async (request) => {
      requireServer(request.caller, "reading a provider payment");
      return readProviderPayment(app, request.params.id);
    },
  );
}
