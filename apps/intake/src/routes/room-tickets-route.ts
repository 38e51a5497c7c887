// Joining a waiting room and watching the place: POST a ticket (rate limited per client IP), poll it (a poll is
// a heartbeat), or open its WebSocket for live positions and the admission token.

import {
  type AdmissionTokens,
  type JoinPassKind,
  joinRoom,
  readTicket,
  verifyJoinPass,
} from "@floodgate/admission";
import type { RoomIdParams, TicketJoinRequest, TicketParams } from "@floodgate/domain";
import {
  problemResponseSchema,
  roomIdParamsSchema,
  ticketJoinRequestSchema,
  ticketParamsSchema,
  ticketResponseSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { ticketView } from "../admission/ticket-view.ts";
import { actingUser, CREDENTIAL_FIELD, mayRead } from "../auth/caller.ts";
import { authenticateSocket } from "../auth/socket-caller.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { ticketSocketDocs } from "../openapi/socket-docs.ts";
import { answerUpgradeRequired, upgradeRequiredResponse } from "../websockets/upgrade-required.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function roomTicketsRoute(app: FastifyInstance) {
  app.post<{ Params: RoomIdParams; Body: TicketJoinRequest }>(
    "/v1/rooms/:roomId/tickets",
    {
      schema: {
        operationId: "joinRoom",
        summary: "Join a waiting room: a ticket with a place, or an admission when it is not queueing",
        tags: ["Waiting rooms"],
        documented: {
          location: "/v1/rooms/{roomId}/tickets/{ticketId}",
          admission: "room-joins",
          answers: {
            403: "room_joins_server_only: the room takes joins only from the shop's server key (`joins: \"server\"`); a customer token's join is refused, nothing written. join_pass_invalid: `pass` is malformed, not signed by this deployment, tampered with or expired. join_pass_mismatch: `pass` was minted for another user or another room. Nothing written.",
            410: "room_sold_out: the room's products are sold out (none left, none awaiting payment); nothing was written. A restock reopens the room. room_closed: the room's endsAt has passed; nothing was written. A later endsAt (or none) reopens it.",
            503: "room_rejecting: the room's method is reject (an operator's incident switch); `detail` is the room's message. Nothing was written.",
          },
        },
        params: roomIdParamsSchema,
        body: ticketJoinRequestSchema,
        response: {
          200: ticketResponseSchema,
          201: ticketResponseSchema,
          403: problemResponseSchema,
          410: problemResponseSchema,
          503: problemResponseSchema,
          ...problems,
        },
      },
    },
    async (request, reply) => {
      const { roomId } = request.params;
      // The ticket, and the admission token it leads to, are bound to the verified user.
      const userId = actingUser(request.caller, request.body.userId);
      const { redis, keys, control, directory, passes, tokens } = app.admission;
      const room = directory.room(roomId);
      if (room?.definition.joins === "server" && request.caller.kind !== "server") {
        throw new ProblemError("room_joins_server_only", {
          field: CREDENTIAL_FIELD,
          detail: `room ${roomId} takes joins only from the shop's server key`,
        });
      }
      // As of the leader's last tick, from this process's directory: no Redis call to refuse a join.
      if (directory.room(roomId)?.stats.soldOut) {
        throw new ProblemError("room_sold_out", { field: "roomId", detail: `room ${roomId} is sold out` });
      }
      // The address's token goes beside the join (its own slot), in the same round trip. A join pass is checked
      // after the token is taken, by its signature alone (the join stays one round trip): an address over its
      // limit is refused before an ES256 check, so forged passes cannot make this process verify without limit.
      const outcome = await control.admitJoin(request, () =>
        joinRoom(redis, keys, {
          roomId,
          userId,
          pass: checkedPass(tokens, request.body.pass, roomId, userId),
        }),
      );
      if (outcome.result === "unknown_room") {
        throw new ProblemError("not_found", { field: "roomId", detail: `no room ${roomId}` });
      }
      // Decided in the join's script (the room's own clock and config), not from this process's directory.
      if (outcome.result === "closed") {
        throw new ProblemError("room_closed", { field: "roomId", detail: `room ${roomId} is closed` });
      }
      if (outcome.result === "rejecting") {
        throw new ProblemError("room_rejecting", {
          field: "roomId",
          detail:
            directory.room(roomId)?.definition.message ?? `room ${roomId} is refusing every join for now`,
        });
      }
      // An admitted join's token leaves only once its pass is in the user's slot, and is the one the pass holds
      // (a second round trip, for joins admitted at once only).
      const view = ticketView(await passes.beforeToken(outcome.ticket), directory.room(roomId));
      return reply
        .code(outcome.result === "joined" ? 201 : 200)
        .header("location", `/v1/rooms/${roomId}/tickets/${view.ticketId}`)
        .send(view);
    },
  );

  app.get<{ Params: TicketParams }>(
    "/v1/rooms/:roomId/tickets/:ticketId",
    {
      schema: {
        operationId: "getTicket",
        summary: "A ticket's place (polling; a poll is a heartbeat)",
        tags: ["Waiting rooms"],
        params: ticketParamsSchema,
        response: { 200: ticketResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { roomId, ticketId } = request.params;
      const { redis, keys, directory, passes } = app.admission;
      const ticket = await readTicket(redis, keys, roomId, ticketId);
      if (!ticket || !mayRead(request.caller, ticket.userId)) {
        throw new ProblemError("not_found", {
          field: "ticketId",
          detail: `room ${roomId} has no ticket ${ticketId}`,
        });
      }
      return ticketView(await passes.beforeToken(ticket), directory.room(roomId));
    },
  );

  app.route<{ Params: TicketParams }>({
    method: "GET",
    url: "/v1/rooms/:roomId/tickets/:ticketId/ws",
    config: { auth: "socket" },
    schema: {
      operationId: "watchTicket",
      summary: "Live place and admission of a ticket (WebSocket)",
      tags: ["Waiting rooms"],
      documented: {
        socket: ticketSocketDocs,
        answers: {
          400: "validation_error: the room or ticket id in the path is malformed (`errors[]` names it).",
        },
      },
      params: ticketParamsSchema,
      // The params schema refuses a malformed id over HTTP, before any upgrade: that 400 is documented too.
      response: { ...upgradeRequiredResponse, 400: problemResponseSchema },
    },
    handler: answerUpgradeRequired,
    wsHandler: async (socket, request) => {
      const caller = await authenticateSocket(app, socket, request);
      if (caller === null) return;
      const owner = caller.kind === "customer" ? caller.userId : undefined;
      // The instance names the resource, not the URL: the query carries the access token.
      void app.admission.sockets.attach(socket, request.params.roomId, request.params.ticketId, owner, {
        instance: request.url.split("?")[0] ?? request.url,
        requestId: request.id,
      });
    },
  });
}

/** The join pass's kind once its signature, user and room hold (null without one); a 403 otherwise. */
function checkedPass(
  tokens: AdmissionTokens,
  token: string | undefined,
  roomId: string,
  userId: string,
): JoinPassKind | null {
  if (token === undefined) return null;
  const verdict = verifyJoinPass(tokens, token, { roomId, userId });
  if (!verdict.ok) {
    const code = verdict.reason === "mismatch" ? "join_pass_mismatch" : "join_pass_invalid";
    throw new ProblemError(code, { field: "pass", detail: verdict.detail });
  }
  return verdict.claims.pass;
}
