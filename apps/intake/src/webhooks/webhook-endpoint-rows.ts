// Webhook endpoints and deliveries <-> the global database, and the JSON the webhook routes answer.
// Configuration routes: these queries are not on the accepted operations' path (zero Postgres there).
import { randomBytes } from "node:crypto";
import type { GlobalDatabase, WebhookDeliveriesTable, WebhookEndpointsTable } from "@floodgate/db";
import type { Kysely, Selectable } from "kysely";

type EndpointRow = Selectable<WebhookEndpointsTable>;

export const endpointView = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export const deliveryView = (row: Omit<Selectable<WebhookDeliveriesTable>, "payload">) => ({
  id: row.id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttemptAt: row.delivered_at || row.gave_up_at ? null : (row.next_attempt_at?.toISOString() ?? null),
  deliveredAt: row.delivered_at?.toISOString() ?? null,
  gaveUpAt: row.gave_up_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

export async function insertEndpoint(
  db: Kysely<GlobalDatabase>,
  url: string,
  events: string[],
): Promise<EndpointRow> {
  // 24 bytes (192 bits) of secret; the id needs no secrecy, only no collisions.
  return db
    .insertInto("webhook_endpoints")
    .values({
      id: `whe_${randomBytes(12).toString("hex")}`,
      url,
      events,
      secret: `whsec_${randomBytes(24).toString("base64url")}`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export const listEndpoints = (db: Kysely<GlobalDatabase>) =>
  db.selectFrom("webhook_endpoints").selectAll().orderBy("created_at").execute();

export const findEndpoint = (db: Kysely<GlobalDatabase>, id: string) =>
  db.selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirst();

export const updateEndpoint = (
  db: Kysely<GlobalDatabase>,
  id: string,
  change: { url?: string; events?: string[]; enabled?: boolean },
) =>
  db
    .updateTable("webhook_endpoints")
    .set({ ...change, updated_at: new Date() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();

/** Its deliveries go with it (ON DELETE CASCADE); jobs still queued find no row and do nothing. */
export const deleteEndpoint = (db: Kysely<GlobalDatabase>, id: string) =>
  db.deleteFrom("webhook_endpoints").where("id", "=", id).returningAll().executeTakeFirst();

const DELIVERY_COLUMNS = [
  "id",
  "endpoint_id",
  "event_id",
  "event_type",
  "attempts",
  "last_status_code",
  "last_error",
  "next_attempt_at",
  "delivered_at",
  "gave_up_at",
  "redeliver_requested_at",
  "created_at",
] as const;

/** The newest first, at most 100. */
export const listDeliveries = (db: Kysely<GlobalDatabase>, endpointId: string) =>
  db
    .selectFrom("webhook_deliveries")
    .select(DELIVERY_COLUMNS)
    .where("endpoint_id", "=", endpointId)
    .orderBy("created_at", "desc")
    .limit(100)
    .execute();

/** Asks the workers' relay to send it again (outbox-relay.ts' relayRedeliveries). */
export const requestRedelivery = (db: Kysely<GlobalDatabase>, id: string) =>
  db
    .updateTable("webhook_deliveries")
    .set({ redeliver_requested_at: new Date(), gave_up_at: null })
    .where("id", "=", id)
    .returning(DELIVERY_COLUMNS)
    .executeTakeFirst();
