// Waiting rooms, for operators (Authorization: Bearer <ADMIN_API_KEY>): define or change a room, look at it,
// revoke an admission. A route class, a product and a coupon are each guarded by one active room at most
// (room-conflicts.ts).

import {
  DEFAULT_ABANDON_SECONDS,
  isRoomClosed,
  type RoomDefinition,
  RoomDefinitionBusyError,
  readRoomDefinition,
  readRoomStats,
  readShuffleProof,
  revokePass,
  revokeTicket,
  withRoomDefinitionLock,
  writeRoomDefinition,
} from "@floodgate/admission";
import type { RoomDefinitionRequest, RoomIdParams, TicketParams } from "@floodgate/domain";
import {
  problemResponseSchema,
  roomDefinitionRequestSchema,
  roomIdParamsSchema,
  roomResponseSchema,
  ticketParamsSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import {
  type RoomDefinitionDraft,
  refuseGuardsBesideSale,
  refuseRoomConflicts,
} from "../admission/room-conflicts.ts";
import { checkedLanes } from "../admission/room-lanes-input.ts";
import { adminRoutes } from "../auth/admin-auth.ts";
import { parseTimestamp } from "../coupons/coupon-input.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

async function roomView(app: FastifyInstance, roomId: string) {
  const { redis, keys } = app.admission;
  const [definition, stats, shuffle] = await Promise.all([
    readRoomDefinition(redis, keys, roomId),
    readRoomStats(redis, keys, roomId),
    readShuffleProof(redis, keys, roomId),
  ]);
  if (!definition) throw new ProblemError("not_found", { field: "roomId", detail: `no room ${roomId}` });
  return {
    roomId,
    mode: definition.mode,
    queueing: stats.queueing,
    waiting: stats.waiting,
    admittedLastMinute: stats.admittedLastMinute,
    abandoned: stats.abandonedTotal,
    measuredAdmitRate: stats.measuredAdmitRate,
    admitPerSecond: definition.admitPerSecond,
    autoAdmitPerSecond: definition.admitPerSecond === "auto" ? stats.autoAdmitPerSecond : null,
    sessionSeconds: definition.sessionSeconds,
    abandonSeconds: definition.abandonSeconds,
    startsAt: definition.startsAt === null ? null : new Date(definition.startsAt).toISOString(),
    guards: definition.guards,
    products: definition.products,
    coupons: definition.coupons,
    admitBeyondStock: definition.admitBeyondStock,
    admission: definition.admission,
    endsAt: definition.endsAt === null ? null : new Date(definition.endsAt).toISOString(),
    closed: isRoomClosed(definition),
    method: definition.method,
    message: definition.message,
    joins: definition.joins,
    maxActiveSessions: definition.maxActiveSessions,
    lanes: definition.lanes,
    sessionIdleSeconds: definition.sessionIdleSeconds,
    unitsLeft: stats.unitsLeft,
    soldOut: stats.soldOut,
    updatedAt: new Date(definition.updatedAt).toISOString(),
    shuffleCommitment: shuffle?.commitment ?? null,
  };
}

export async function roomsAdminRoute(app: FastifyInstance) {
  adminRoutes(app);

  app.put<{ Params: { roomId: string }; Body: RoomDefinitionRequest }>(
    "/v1/rooms/:roomId",
    {
      schema: {
        operationId: "putRoom",
        summary: "Define or change a waiting room",
        tags: ["Waiting rooms"],
        documented: { location: "/v1/rooms/{roomId}" },
        params: roomIdParamsSchema,
        body: roomDefinitionRequestSchema,
        response: { 200: roomResponseSchema, 201: roomResponseSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { roomId } = request.params;
      const body = request.body;
      const { redis, keys } = app.admission;
      // The calendar, not only the shape: 2026-02-30 is refused rather than rolled over into March.
      const startsAt = body.startsAt ? parseTimestamp("startsAt", body.startsAt) : null;
      // A time past is taken: it closes the room at once (an operator ending a sale now).
      const endsAt = body.endsAt ? parseTimestamp("endsAt", body.endsAt) : null;
      if (endsAt !== null && startsAt !== null && endsAt <= startsAt) {
        const detail = "endsAt must be after startsAt";
        throw new ProblemError("validation_error", {
          field: "endsAt",
          detail,
          errors: [{ field: "endsAt", pointer: "#/endsAt", detail }],
        });
      }
      const lanes = checkedLanes(body.lanes ?? [], body.method ?? "fifo");
      const draft: RoomDefinitionDraft = {
        roomId,
        mode: body.mode,
        guards: body.guards ?? [],
        products: body.products ?? [],
        coupons: body.coupons ?? [],
      };
      refuseGuardsBesideSale(draft);
      // Check and write as one step across intake processes: two conflicting rooms defined at once must not
      // both pass the check.
      const { previous, room } = await withRoomDefinitionLock(redis, keys, async () => {
        if (body.mode !== "off") {
          const roomIds = await redis.smembers(keys.rooms());
          const others = await Promise.all(
            roomIds.filter((id) => id !== roomId).map((id) => readRoomDefinition(redis, keys, id)),
          );
          refuseRoomConflicts(draft, others);
        }
        const previous = await readRoomDefinition(redis, keys, roomId);
        const room: RoomDefinition = {
          roomId,
          mode: body.mode,
          admitPerSecond: body.admitPerSecond,
          sessionSeconds: body.sessionSeconds,
          abandonSeconds: body.abandonSeconds ?? DEFAULT_ABANDON_SECONDS,
          startsAt,
          guards: draft.guards,
          products: draft.products,
          coupons: draft.coupons,
          admitBeyondStock: body.admitBeyondStock ?? 0,
          admission: body.admission ?? "session",
          endsAt,
          method: body.method ?? "fifo",
          message: body.message ?? null,
          joins: body.joins ?? "anyone",
          maxActiveSessions: body.maxActiveSessions ?? null,
          lanes,
          sessionIdleSeconds: body.sessionIdleSeconds ?? null,
          updatedAt: Date.now(),
        };
        await writeRoomDefinition(redis, keys, room, previous);
        return { previous, room };
      }).catch((error: Error) => {
        if (error instanceof RoomDefinitionBusyError) {
          throw new ProblemError("service_unavailable", { detail: error.message, retryAfterSeconds: 1 });
        }
        throw error;
      });
      // This process applies it before answering; the others reload on the config channel.
      await app.admission.refresh();
      request.log.info(
        { roomId, mode: room.mode, guards: room.guards, products: room.products, coupons: room.coupons },
        previous ? "room changed" : "room defined",
      );
      return reply
        .code(previous ? 200 : 201)
        .header("Location", `/v1/rooms/${roomId}`)
        .send(await roomView(app, roomId));
    },
  );

  app.get<{ Params: RoomIdParams }>(
    "/v1/rooms/:roomId",
    {
      schema: {
        operationId: "getRoom",
        summary: "A waiting room with its numbers",
        tags: ["Waiting rooms"],
        params: roomIdParamsSchema,
        response: { 200: roomResponseSchema, ...problems },
      },
    },
    (request) => roomView(app, request.params.roomId),
  );

  app.delete<{ Params: TicketParams }>(
    "/v1/rooms/:roomId/tokens/:ticketId",
    {
      schema: {
        operationId: "revokeAdmission",
        summary: "Revoke a ticket's admission: its token is refused from now on",
        tags: ["Waiting rooms"],
        params: ticketParamsSchema,
        response: { 204: { description: "Revoked.", type: "null" }, ...problems },
      },
    },
    async (request, reply) => {
      const { roomId, ticketId } = request.params;
      const { redis, keys } = app.admission;
      // The ticket in the room's slot, then the user's pass in the user's slot, which the guarded routes read:
      // both before the 204. A failure between them answers 5xx; the retry redoes both (the revoke returns
      // the ticket's owner again).
      const revoked = await revokeTicket(redis, keys, roomId, ticketId);
      if (revoked === null) {
        throw new ProblemError("not_found", {
          field: "ticketId",
          detail: `room ${roomId} has no ticket ${ticketId}`,
        });
      }
      await revokePass(redis, keys, { roomId, ticketId, ...revoked });
      request.log.info({ roomId, ticketId, before: revoked.before }, "admission revoked");
      return reply.code(204).send();
    },
  );
}
