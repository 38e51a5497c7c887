// Join passes, minted by the shop's server (its server key: the shop decides who is staff or a VIP, as it
// decides deposits) - a bypass or a lane for one shopper in one room, signed with the admission signing keys (join-pass.ts in
// @floodgate/admission), for the shop to hand that shopper's page, whose join carries it. The path says
// "passes"; the code says "join pass", apart from the admissions kept in the user's slot (room-passes.ts).

import {
  DEFAULT_JOIN_PASS_SECONDS,
  joinPassKind,
  mintJoinPass,
  readRoomDefinition,
} from "@floodgate/admission";
import type { JoinPassRequest, RoomIdParams } from "@floodgate/domain";
import {
  joinPassRequestSchema,
  joinPassResponseSchema,
  problemResponseSchema,
  roomIdParamsSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { requireServer } from "../auth/caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function joinPassesRoute(app: FastifyInstance) {
  app.post<{ Params: RoomIdParams; Body: JoinPassRequest }>(
    "/v1/rooms/:roomId/passes",
    {
      schema: {
        operationId: "mintJoinPass",
        summary: "A join pass for one shopper: a bypass, or a place in one of the room's lanes",
        tags: ["Waiting rooms"],
        documented: {
          answers: {
            201: "The pass, for this shopper's join in this room only (`pass` in POST /v1/rooms/{roomId}/tickets), until `expiresAt`.",
            400: 'validation_error: `kind` is neither "bypass" nor one of the room\'s lanes, or a field is malformed.',
            403: "forbidden_caller: only the shop's server key mints passes (not a customer token, not the admin key).",
            404: "not_found: no such room.",
          },
        },
        params: roomIdParamsSchema,
        body: joinPassRequestSchema,
        response: {
          201: joinPassResponseSchema,
          400: problemResponseSchema,
          403: problemResponseSchema,
          404: problemResponseSchema,
          ...problems,
        },
      },
    },
    async (request, reply) => {
      requireServer(request.caller, "minting a join pass");
      const { roomId } = request.params;
      const { userId, kind, expiresInSeconds } = request.body;
      const { redis, keys, tokens } = app.admission;
      // The room as stored (one read; an operator's route, not the hot path): a lane must be one it has now.
      const room = await readRoomDefinition(redis, keys, roomId);
      if (room === null)
        throw new ProblemError("not_found", { field: "roomId", detail: `no room ${roomId}` });
      if (kind !== "bypass" && !room.lanes.some((lane) => lane.name === kind)) {
        const detail = `room ${roomId} has no lane ${kind} (kind is "bypass" or one of its lanes)`;
        throw new ProblemError("validation_error", {
          field: "kind",
          detail,
          errors: [{ field: "kind", pointer: "#/kind", detail }],
        });
      }
      const { token, claims } = mintJoinPass(tokens, {
        roomId,
        userId,
        pass: joinPassKind(kind),
        expiresInSeconds: expiresInSeconds ?? DEFAULT_JOIN_PASS_SECONDS,
      });
      request.log.info({ roomId, userId, kind }, "join pass minted");
      return reply.code(201).send({
        pass: token,
        roomId,
        userId,
        kind,
        expiresAt: new Date(claims.expiresAt).toISOString(),
      });
    },
  );
}
