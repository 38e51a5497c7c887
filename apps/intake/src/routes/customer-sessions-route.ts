// POST /v1/customer-sessions: the shop's server asks for a short-lived token its page hands to the checkout
// SDK (like Stripe's ephemeral keys). Pure crypto: nothing is stored, so minting costs no Redis or Postgres.
import type { CustomerSessionRequest } from "@floodgate/domain";
import {
  customerSessionRequestSchema,
  customerSessionResponseSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { requireServer } from "../auth/caller.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function customerSessionsRoute(app: FastifyInstance) {
  app.post<{ Body: CustomerSessionRequest }>(
    "/v1/customer-sessions",
    {
      schema: {
        operationId: "createCustomerSession",
        summary: "Mint a customer token for a shop page (the shop's server only)",
        tags: ["Customer sessions"],
        body: customerSessionRequestSchema,
        response: { 201: customerSessionResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      requireServer(request.caller, "minting a customer token");
      const { userId, ttlSeconds } = request.body;
      const minted = await app.auth.customerTokens.mint(
        userId,
        ttlSeconds ?? app.config.customerTokenTtlSeconds,
      );
      return reply.code(201).send({ token: minted.token, userId, expiresAt: minted.expiresAt.toISOString() });
    },
  );
}
