// The relay: turns each shard's outbox rows into deliveries, one per (event, enabled endpoint subscribed to
// its type), and one BullMQ job per delivery. Rows are taken FOR UPDATE SKIP LOCKED inside a shard
// transaction and deleted in it, so several workers relaying at once never take the same row; the deliveries
// are written (global database, ON CONFLICT DO NOTHING) and the jobs added (deterministic job ids) before the
// shard commits, so a worker dying half-way leaves the rows for the next relay, which adds nothing twice. The
// delivery job itself does nothing for a delivery already delivered (webhook-delivery-worker.ts): that, not
// the job id alone, is what makes a delivery happen once. Off the hot path: its own loop, not the batches'.
import { createHash } from "node:crypto";
import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { JobsOptions, Queue } from "bullmq";
import { type Kysely, sql } from "kysely";
import { readFinalOrders } from "./final-order-views.ts";
import type { DeliveryJob } from "./webhook-delivery-worker.ts";
import type { WebhookSubscriptions } from "./webhook-subscriptions.ts";

/** Rows per shard per pass: a pass holds their locks until the jobs are added. */
export const ROWS_PER_PASS = 500;

/** `whd_` + 32 hex digits of SHA-256("<event id>:<endpoint id>"): the same pair, the same delivery. */
export const deliveryId = (eventId: string, endpointId: string) =>
  `whd_${createHash("sha256").update(`${eventId}:${endpointId}`).digest("hex").slice(0, 32)}`;

export interface RelayDependencies {
  shards: Kysely<ShardDatabase>[];
  global: Kysely<GlobalDatabase>;
  queue: Queue<DeliveryJob>;
  subscriptions: WebhookSubscriptions;
  jobOptions: (jobId: string) => JobsOptions;
}

interface OutboxRow {
  event_id: string;
  event_type: string;
  operation_id: string;
  data: Record<string, unknown> | null;
  created_at: Date;
}

/** One pass over one shard; returns how many outbox rows it relayed. */
export async function relayShard(deps: RelayDependencies, shard: number): Promise<number> {
  // One statement when the outbox is empty (the usual case between events), not a transaction's three.
  const any = await sql`select 1 from webhook_outbox limit 1`.execute(deps.shards[shard]!);
  if (any.rows.length === 0) return 0;
  return deps.shards[shard]!.transaction().execute(async (trx) => {
    const taken = await sql<OutboxRow>`
      select event_id, event_type, operation_id, data, created_at from webhook_outbox
      order by created_at limit ${ROWS_PER_PASS} for update skip locked`.execute(trx);
    const rows = taken.rows;
    if (rows.length === 0) return 0;
    const orders = await readFinalOrders(
      trx,
      rows.filter((row) => row.data === null).map((row) => row.operation_id),
    );
    const deliveries: {
      id: string;
      endpoint_id: string;
      event_id: string;
      event_type: string;
      payload: string;
    }[] = [];
    for (const row of rows) {
      const data = row.data ?? orders.get(row.operation_id);
      if (data === undefined) continue; // its order is gone (cannot happen short of a manual delete): dropped
      const payload = JSON.stringify({
        id: row.event_id,
        type: row.event_type,
        createdAt: row.created_at.toISOString(),
        data,
      });
      // An event nobody subscribes to any more is dropped here (it was wanted when it was written).
      for (const endpoint of deps.subscriptions.endpointsFor(row.event_type)) {
        deliveries.push({
          id: deliveryId(row.event_id, endpoint.id),
          endpoint_id: endpoint.id,
          event_id: row.event_id,
          event_type: row.event_type,
          payload,
        });
      }
    }
    if (deliveries.length > 0) {
      // An endpoint deleted since the last refresh of the list fails the join: its rows are left out.
      const column = <K extends keyof (typeof deliveries)[number]>(key: K) => deliveries.map((d) => d[key]);
      await sql`
        insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, next_attempt_at)
        select v.id, v.endpoint_id, v.event_id, v.event_type, v.payload, now()
        from unnest(${column("id")}::text[], ${column("endpoint_id")}::text[], ${column("event_id")}::text[],
                    ${column("event_type")}::text[], ${column("payload")}::text[])
          as v(id, endpoint_id, event_id, event_type, payload)
        join webhook_endpoints e on e.id = v.endpoint_id
        on conflict (id) do nothing`.execute(deps.global);
      await deps.queue.addBulk(
        deliveries.map((delivery) => ({
          name: "deliver",
          data: { deliveryId: delivery.id },
          opts: deps.jobOptions(delivery.id),
        })),
      );
    }
    await trx
      .deleteFrom("webhook_outbox")
      .where(
        "event_id",
        "in",
        rows.map((row) => row.event_id),
      )
      .execute();
    return rows.length;
  });
}

/**
 * Deliveries a shop asked to send again (POST /v1/webhook-deliveries/:id/redeliver): a job each, with an id of
 * its own (the first one's may still be kept), and the request cleared in the same transaction.
 */
export async function relayRedeliveries(deps: RelayDependencies): Promise<number> {
  const any =
    await sql`select 1 from webhook_deliveries where redeliver_requested_at is not null limit 1`.execute(
      deps.global,
    );
  if (any.rows.length === 0) return 0;
  return deps.global.transaction().execute(async (trx) => {
    const asked = await sql<{ id: string; redeliver_requested_at: Date }>`
      select id, redeliver_requested_at from webhook_deliveries where redeliver_requested_at is not null
      order by redeliver_requested_at limit 100 for update skip locked`.execute(trx);
    if (asked.rows.length === 0) return 0;
    await deps.queue.addBulk(
      asked.rows.map((row) => ({
        name: "deliver",
        data: { deliveryId: row.id, redeliver: true },
        opts: deps.jobOptions(`${row.id}-r${row.redeliver_requested_at.getTime()}`),
      })),
    );
    await trx
      .updateTable("webhook_deliveries")
      .set({ redeliver_requested_at: null })
      .where(
        "id",
        "in",
        asked.rows.map((row) => row.id),
      )
      .execute();
    return asked.rows.length;
  });
}
