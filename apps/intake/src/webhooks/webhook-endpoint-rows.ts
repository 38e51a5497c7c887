// Webhook endpoints and deliveries <-> the global database, and the JSON the webhook routes answer.
// Configuration routes: these queries are not on the accepted operations' path (zero Postgres there).
import { randomBytes } from "node:crypto";
import type { GlobalDatabase, WebhookDeliveriesTable, WebhookEndpointsTable } from "@floodgate/db";
import {
  PING_EVENT_TYPE,
  SECRET_ROTATION_OVERLAP_HOURS,
  type WebhookSignatureScheme,
} from "@floodgate/domain";
import { type Kysely, type Selectable, sql } from "kysely";

type EndpointRow = Selectable<WebhookEndpointsTable>;

export const endpointView = (row: EndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  signatureScheme: row.signature_scheme,
  previousSecretExpiresAt: previousSecretExpiry(row)?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const OVERLAP_MS = SECRET_ROTATION_OVERLAP_HOURS * 3_600_000;

/** When the secret the last rotation replaced stops signing; undefined if none signs any more. */
function previousSecretExpiry(row: EndpointRow): Date | undefined {
  if (row.previous_secret === null || row.secret_rotated_at === null) return undefined;
  const expiry = new Date(row.secret_rotated_at.getTime() + OVERLAP_MS);
  return expiry.getTime() > Date.now() ? expiry : undefined;
}

/**
 * `whsec_` + 24 random bytes (192 bits) in standard base64, as Standard Webhooks libraries decode it (24 bytes
 * need no padding). Secrets made before were base64url: the worker reads both alphabets.
 */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

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
      secret: newSecret(),
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
  change: { url?: string; events?: string[]; enabled?: boolean; signatureScheme?: WebhookSignatureScheme },
) => {
  const { signatureScheme, ...columns } = change;
  return db
    .updateTable("webhook_endpoints")
    .set({
      ...columns,
      ...(signatureScheme === undefined ? {} : { signature_scheme: signatureScheme }),
      updated_at: new Date(),
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
};

/**
 * A new secret; the current one becomes the previous, signing beside it for SECRET_ROTATION_OVERLAP_HOURS from
 * now (the database's clock, which the worker judges by too). A secret rotated out before is dropped at once:
 * at most two sign. One statement, so two rotations at once cannot lose a secret half-way.
 */
export const rotateSecret = (db: Kysely<GlobalDatabase>, id: string) =>
  db
    .updateTable("webhook_endpoints")
    .set({
      previous_secret: sql<string>`secret`,
      secret: newSecret(),
      secret_rotated_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();

/**
 * A ping for one endpoint, as a delivery the workers' relay sends within a second (its redeliveries pass:
 * relayRedeliveries in outbox-relay.ts), signed, retried and listed like any other.
 */
export async function insertPing(db: Kysely<GlobalDatabase>, endpointId: string) {
  const eventId = `evt_${randomBytes(16).toString("hex")}`;
  const now = new Date();
  const payload = JSON.stringify({
    id: eventId,
    type: PING_EVENT_TYPE,
    createdAt: now.toISOString(),
    data: { endpointId },
  });
  const inserted = db
    .insertInto("webhook_deliveries")
    .values({
      id: `whd_${randomBytes(16).toString("hex")}`,
      endpoint_id: endpointId,
      event_id: eventId,
      event_type: PING_EVENT_TYPE,
      payload,
      next_attempt_at: now,
      redeliver_requested_at: now,
      created_at: now,
    })
    .returning(DELIVERY_COLUMNS)
    .executeTakeFirstOrThrow();
  // The endpoint deleted since the route found it: no ping (foreign_key_violation), as if never found.
  return inserted.catch((error: { code?: string }) => {
    if (error.code === "23503") return undefined;
    throw error;
  });
}

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
