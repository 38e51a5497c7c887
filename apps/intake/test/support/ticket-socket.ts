// A waiting-room WebSocket as a test sees it (json-socket.ts): the messages a ticket's socket sends.
import { type JsonSocket, openJsonSocket, withAccessToken } from "./json-socket.ts";

export interface TicketMessage {
  type: string;
  position?: number;
  etaSeconds?: number;
  unitsLeft?: number;
  admissionToken?: string;
  expiresAt?: string;
  admittedAt?: string;
  reason?: string;
}

export type TicketSocket = JsonSocket<TicketMessage>;

/** `accessToken`: the caller's credential (a server key or the ticket owner's customer token). */
export function openTicketSocket(
  baseUrl: string,
  roomId: string,
  ticketId: string,
  accessToken: string,
): Promise<TicketSocket> {
  return openJsonSocket<TicketMessage>(
    withAccessToken(
      `${baseUrl.replace(/^http/, "ws")}/v1/rooms/${roomId}/tickets/${ticketId}/ws`,
      accessToken,
    ),
  );
}
