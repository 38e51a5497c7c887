// Refunds through the real intake (inject), as the shop's server sends them.

import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import { type ReconcileReport, reconcile } from "@floodgate/reconcile";
import { createRedis, waitForRedis } from "@floodgate/redis-connections";
import type { Kysely } from "kysely";
import { asShop, documentedInject, type IntakeApp, readAsShop } from "./intake-client.ts";
import { waitFor } from "./wait-for.ts";

let keys = 0;

export interface RefundBody {
  paymentId: string;
  amount?: number;
  reason?: string;
  restock?: boolean;
}

/** POST /v1/refunds with a fresh Idempotency-Key (or the given one); returns the refund id. */
export async function refund(
  app: IntakeApp,
  body: RefundBody,
  idempotencyKey = `refund-${process.pid}-${++keys}`,
) {
  const response = await documentedInject(app, {
    method: "POST",
    url: "/v1/refunds",
    headers: asShop(app, { "idempotency-key": idempotencyKey }),
    payload: body,
  });
  if (response.statusCode !== 202) throw new Error(`refund refused: ${response.statusCode} ${response.body}`);
  return response.json().id as string;
}

export async function refundView(app: IntakeApp, id: string) {
  const response = await readAsShop(app, `/v1/refunds/${id}`);
  if (response.statusCode !== 200) throw new Error(`GET refund: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The final views of these operations (GET `${base}${id}`), once none is pending. */
export async function settledViews(app: IntakeApp, base: string, ids: string[], timeoutMs = 60_000) {
  let views: Record<string, unknown>[] = [];
  await waitFor(
    async () => {
      views = await Promise.all(
        ids.map(async (id) => {
          // A 503 problem has a numeric status, not "pending": read until the view itself answers.
          const response = await readAsShop(app, `${base}${id}`);
          if (response.statusCode !== 200)
            throw new Error(`GET ${base}${id}: ${response.statusCode} ${response.body}`);
          return response.json();
        }),
      );
      return views.every((view) => view.status !== "pending");
    },
    `${ids.length} operations under ${base} to settle`,
    timeoutMs,
  );
  return views;
}

/** A dry reconcile run on a connection of its own, as the CLI makes one, for the invariants it checks. */
export async function runReconcile(
  app: IntakeApp,
  global: Kysely<GlobalDatabase>,
  shards: Kysely<ShardDatabase>[],
  queueKeys: QueueKeys,
): Promise<ReconcileReport> {
  const redis = createRedis(app.config.redisUrl);
  try {
    await waitForRedis(redis);
    return await reconcile({ global, shards, redis, keys: queueKeys }, { dryRun: true });
  } finally {
    redis.disconnect();
  }
}
