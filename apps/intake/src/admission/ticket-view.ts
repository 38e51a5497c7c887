// A ticket as a client sees it, on the join, a poll and the WebSocket alike. A pre-queue ticket is "waiting":
// its position is the pre-queue's size (its place is decided at startsAt: shuffle-proof-route.ts) and startsAt
// says when. A waiting ticket of a sold-out room is "sold_out" (it keeps its place: a restock reopens the room);
// of a room past its endsAt, "closed" (it keeps its place too: a later endsAt reopens the room).
import { isRoomClosed, laneEtaSeconds, type TicketState } from "@floodgate/admission";
import type { RoomEntry } from "./room-directory.ts";

export type PublicTicketStatus =
  | "waiting"
  | "closed"
  | "sold_out"
  | "admitted"
  | "expired"
  | "abandoned"
  | "revoked";

export interface TicketView {
  ticketId: string;
  roomId: string;
  status: PublicTicketStatus;
  position?: number;
  etaSeconds?: number;
  /** A room selling products: the units left. */
  unitsLeft?: number;
  startsAt?: string;
  admissionToken?: string;
  expiresAt?: string;
}

/** `band`: the ticket's lane (0 the default queue), which moves at its share of the room's rate. */
export function waitingEta(
  position: number,
  room: RoomEntry | undefined,
  band = 0,
  nowMs = Date.now(),
): number {
  if (!room) return 0;
  const untilStart = room.definition.startsAt ? Math.max(0, (room.definition.startsAt - nowMs) / 1000) : 0;
  return Math.ceil(untilStart) + laneEtaSeconds(position, band, room.stats, room.definition);
}

/** `handedOut`: the ticket as PassGrants.beforeToken gave it, with the token an admitted one carries. */
export function ticketView(
  handedOut: { ticket: TicketState; admissionToken?: string },
  room: RoomEntry | undefined,
): TicketView {
  const { ticket, admissionToken } = handedOut;
  const base = { ticketId: ticket.ticketId, roomId: ticket.roomId };
  if ((ticket.status === "waiting" || ticket.status === "early") && room && isRoomClosed(room.definition)) {
    return { ...base, status: "closed" };
  }
  if ((ticket.status === "waiting" || ticket.status === "early") && room?.stats.soldOut) {
    return { ...base, status: "sold_out" };
  }
  if (ticket.status === "waiting" || ticket.status === "early") {
    const position = ticket.position ?? 0;
    const view: TicketView = {
      ...base,
      status: "waiting",
      position,
      etaSeconds: waitingEta(position, room, ticket.band ?? 0),
    };
    const unitsLeft = room?.stats.unitsLeft;
    if (unitsLeft !== undefined && unitsLeft !== null) view.unitsLeft = unitsLeft;
    if (ticket.status === "early" && room?.definition.startsAt) {
      view.startsAt = new Date(room.definition.startsAt).toISOString();
    }
    return view;
  }
  if (ticket.status === "admitted") {
    if (admissionToken === undefined)
      throw new Error(`ticket ${ticket.ticketId}: admitted without its pass's token`);
    return {
      ...base,
      status: "admitted",
      admissionToken,
      expiresAt: new Date(ticket.expiresAt ?? Date.now()).toISOString(),
    };
  }
  return { ...base, status: ticket.status };
}
