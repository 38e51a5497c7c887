import { type Kysely, sql } from "kysely";

// The waiting-room session an order was accepted with (its admission token's room and ticket), from the order's
// stream message: when the order ends (paid, cancelled, expired, failed), the worker ends the session, so the
// room admits the next shopper. Null for an order placed without an admission token.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column if not exists session_room_id text,
                               add column if not exists session_ticket_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column if exists session_room_id,
                               drop column if exists session_ticket_id`.execute(db);
}
