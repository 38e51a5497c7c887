import type { DepositRequest, OperationIdParams, UserIdParams } from "@floodgate/domain";
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
import { mayRead, requireServer, visibleTo } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { acceptOperation } from "../operations/accept-operation.ts";
import { readOperation } from "../operations/read-operation.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function walletsRoute(app: FastifyInstance) {
  app.post<{ Params: UserIdParams; Body: DepositRequest }>(
    "/v1/wallets/:userId/deposits",
    {
      schema: {
        operationId: "createDeposit",
        summary: "Deposit into a user's wallet (the shop's server only)",
        tags: ["Wallets"],
        documented: { location: "/v1/deposits/{id}", admission: "deposits", idempotent: true },
        params: userIdParamsSchema,
        body: depositRequestSchema,
        response: { 202: acceptedResponseSchema, ...problems },
      },
    },
    (request, reply) => {
      // Money enters a wallet only because the shop's payment provider confirmed it: never from a browser.
      requireServer(request.caller, "a deposit");
      acceptOperation(request, reply, {
        kind: "deposit",
        userId: request.params.userId,
        ...request.body,
      });
    },
  );

  app.get<{ Params: OperationIdParams }>(
    "/v1/deposits/:id",
    {
      schema: {
        operationId: "getDeposit",
        summary: "A deposit and its status",
        tags: ["Wallets"],
        params: operationIdParamsSchema,
        response: { 200: operationResponseSchema, ...problems },
      },
    },
    async (request) =>
      visibleTo(
        request.caller,
        await readOperation(app, "deposit", request.params.id),
        "id",
        `deposit ${request.params.id}`,
      ),
  );

  // The balance lives on the user's shard; a user who never deposited has a balance of 0.
  app.get<{ Params: UserIdParams }>(
    "/v1/wallets/:userId",
    {
      schema: {
        operationId: "getWallet",
        summary: "A user's balance",
        tags: ["Wallets"],
        params: userIdParamsSchema,
        response: { 200: walletResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { userId } = request.params;
      if (!mayRead(request.caller, userId)) {
        throw new ProblemError("not_found", { field: "userId", detail: `no wallet ${userId}` });
      }
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
