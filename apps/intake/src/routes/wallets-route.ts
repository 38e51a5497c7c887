import {
  acceptedResponseSchema,
  depositRequestSchema,
  operationIdParamsSchema,
  operationResponseSchema,
  problemResponseSchema,
  userIdParamsSchema,
  walletResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { acceptOperation } from "./accept-operation.ts";
import { readOperation } from "./read-operation.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function walletsRoute(app: FastifyInstance) {
  app.post<{ Params: { userId: string }; Body: { amount: number; currency?: string } }>(
    "/v1/wallets/:userId/deposits",
    {
      schema: {
        params: userIdParamsSchema,
        body: depositRequestSchema,
        response: { 202: acceptedResponseSchema, ...problems },
      },
    },
    (request, reply) =>
      acceptOperation(request, reply, { kind: "deposit", userId: request.params.userId, ...request.body }),
  );

  app.get<{ Params: { id: string } }>(
    "/v1/deposits/:id",
    { schema: { params: operationIdParamsSchema, response: { 200: operationResponseSchema, ...problems } } },
    (request) => readOperation(app, "deposit", request.params.id),
  );

  // The balance lives on the user's shard; a user who never deposited has a balance of 0.
  app.get<{ Params: { userId: string } }>(
    "/v1/wallets/:userId",
    { schema: { params: userIdParamsSchema, response: { 200: walletResponseSchema, ...problems } } },
    async (request) => {
      const { userId } = request.params;
      const wallet = await app.shards
        .forUser(userId)
        .selectFrom("wallets")
        .select("balance")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return { userId, balance: wallet?.balance ?? 0, currency: app.config.currency };
    },
  );
}
