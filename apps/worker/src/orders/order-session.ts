// The waiting-room session an order was accepted with, as the shard keeps it (orders.session_room_id and
// session_ticket_id, from the order's stream message): whoever ends or pays the order reads it with the order,
// and the batch ends those sessions after its commit (room-sessions.ts in @floodgate/admission).
import type { OrderSession } from "@floodgate/domain";

export interface OrderSessionColumns {
  session_room_id: string | null;
  session_ticket_id: string | null;
}

export const orderSessionOf = (row: OrderSessionColumns): OrderSession | null =>
  row.session_room_id !== null && row.session_ticket_id !== null
    ? { roomId: row.session_room_id, ticketId: row.session_ticket_id }
    : null;

/** Every session of the orders a batch ended or found paid, each once. */
export function sessionsOf(...orders: readonly { session?: OrderSession | null }[][]): OrderSession[] {
  const sessions = new Map<string, OrderSession>();
  for (const list of orders)
    for (const { session } of list)
      if (session) sessions.set(`${session.roomId} ${session.ticketId}`, session);
  return [...sessions.values()];
}
