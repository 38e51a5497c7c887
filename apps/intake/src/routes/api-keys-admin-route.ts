// The shops' server keys, managed by the admin: a key is shown once, when created; the database keeps only
// its hash. A change is published so every intake process's cache has it within the publish's round trip.

import { createApiKey, listApiKeys, revokeApiKey } from "@floodgate/auth";
import type { ApiKeyCreateRequest, ApiKeyIdParams } from "@floodgate/domain";
import {
  apiKeyCreateRequestSchema,
  apiKeyIdParamsSchema,
  apiKeyListResponseSchema,
  apiKeyResponseSchema,
  problemResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { adminRoutes } from "../auth/admin-auth.ts";
import { keyCreatedMessage, keyRevokedMessage } from "../auth/server-key-cache.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

const view = (key: { id: string; name: string; createdAt: Date; revokedAt: Date | null }) => ({
  id: key.id,
  name: key.name,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

export async function apiKeysAdminRoute(app: FastifyInstance) {
  adminRoutes(app);
  const publish = (message: string) =>
    app.admission.redis.publish(app.auth.keyChannel, message).catch((error: Error) => {
      // The other processes' minute-long reload still brings the change; say so rather than fail the call.
      app.log.warn(
        { err: error.message },
        "api keys: change not published; other intake processes pick it up within a minute",
      );
    });

  app.post<{ Body: ApiKeyCreateRequest }>(
    "/v1/api-keys",
    {
      schema: {
        operationId: "createApiKey",
        summary: "Create a server key (shown this once)",
        tags: ["Server keys"],
        body: apiKeyCreateRequestSchema,
        response: { 201: apiKeyResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const created = await createApiKey(app.globalDb, request.body.name);
      app.auth.serverKeys.add(created);
      await publish(keyCreatedMessage(created));
      request.log.info({ keyId: created.id, name: created.name }, "server key created");
      return reply.code(201).send({ ...view(created), key: created.key });
    },
  );

  app.get(
    "/v1/api-keys",
    {
      schema: {
        operationId: "listApiKeys",
        summary: "Every server key (never the key itself)",
        tags: ["Server keys"],
        response: { 200: apiKeyListResponseSchema, ...problems },
      },
    },
    async () => ({ data: (await listApiKeys(app.globalDb)).map(view) }),
  );

  app.delete<{ Params: ApiKeyIdParams }>(
    "/v1/api-keys/:id",
    {
      schema: {
        operationId: "revokeApiKey",
        summary: "Revoke a server key",
        tags: ["Server keys"],
        params: apiKeyIdParamsSchema,
        response: { 200: apiKeyResponseSchema, ...problems },
      },
    },
    async (request) => {
      const revoked = await revokeApiKey(app.globalDb, request.params.id);
      if (revoked === undefined) {
        throw new ProblemError("not_found", { field: "id", detail: `no server key ${request.params.id}` });
      }
      app.auth.serverKeys.remove(revoked.id);
      await publish(keyRevokedMessage(revoked.id));
      request.log.info({ keyId: revoked.id }, "server key revoked");
      return view(revoked);
    },
  );
}
