// A waiting-room WebSocket as a test sees it (json-socket.ts): the messages a ticket's socket sends.
import { type JsonSocket, openJsonSocket } from "./json-socket.ts";

export interface TicketMessage {
  type: string;
  position?: number;
  etaSeconds?: number;
  admissionToken?: string;
  expiresAt?: string;
  admittedAt?: string;
  reason?: string;
}

export type TicketSocket = JsonSocket<TicketMessage>;

/** `accessToken`: the credential a browser passes in the query (a socket carries no Authorization header). */
export function openTicketSocket(
  baseUrl: string,
  roomId: string,
  ticketId: string,
  accessToken: string,
): Promise<TicketSocket> {
  return openJsonSocket<TicketMessage>(
    `${baseUrl.replace(/^http/, "ws")}/v1/rooms/${roomId}/tickets/${ticketId}/ws?access_token=${encodeURIComponent(accessToken)}`,
  );
}
