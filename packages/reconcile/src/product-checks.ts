// Per product: the Postgres invariant (received = stock + ledger units, ledger units = units in live orders,
// stock >= 0) and, with the queue drained, Redis' state against Postgres (price, available = stock).
import { auditProducts, type ProductAudit } from "@floodgate/db";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

export async function listProductIds(stores: ReconcileStores): Promise<string[]> {
  const rows = await stores.global.selectFrom("products").select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
}

/**
 * One query on the global database and one per shard for the audit, one for the prices, and with
 * `compareRedis` a WATCH and one pipeline: the keys stay watched until the repairs are applied, so an admin
 * change landing in between aborts them.
 */
export async function checkProducts(
  stores: ReconcileStores,
  productIds: string[],
  compareRedis: boolean,
): Promise<DriftFinding[]> {
  if (productIds.length === 0) return [];
  const audits = await auditProducts(stores.global, stores.shards, productIds);
  if (!compareRedis) return audits.flatMap(postgresFindings);

  const prices = new Map(
    (
      await stores.global
        .selectFrom("products")
        .select(["id", "price"])
        .where("id", "in", productIds)
        .execute()
    ).map((row) => [row.id, Number(row.price)]),
  );
  const stateKeys = audits.map((audit) => stores.keys.productState(audit.productId));
  await stores.redis.watch(...stateKeys);
  const pipeline = stores.redis.pipeline();
  for (const key of stateKeys) pipeline.hmget(key, "price", "available");
  const replies = (await pipeline.exec()) ?? [];
  return audits.flatMap((audit, i) => {
    const [error, state] = replies[i] ?? [new Error("no reply"), null];
    if (error) throw error;
    const [price, available] = state as [string | null, string | null];
    return [
      ...postgresFindings(audit),
      ...redisFindings(audit, prices.get(audit.productId)!, stateKeys[i]!, price, available),
    ];
  });
}

function postgresFindings(audit: ProductAudit): DriftFinding[] {
  const { productId: id, received, stock, ledgerUnits, liveOrderUnits } = audit;
  const findings: DriftFinding[] = [];
  const product = { subject: "product", id } as const;
  // The workers move stock and write the ledger in one statement: this holds even mid-batch.
  if (received !== stock + ledgerUnits) {
    findings.push({
      ...product,
      kind: "product_ledger",
      detail: `postgres received ${received} != stock ${stock} + ledger units ${ledgerUnits}`,
      needsDrained: false,
    });
  }
  // The ledger and the shards are written in separate transactions: compared only with no batch in flight.
  if (ledgerUnits !== liveOrderUnits) {
    findings.push({
      ...product,
      kind: "product_orders",
      detail: `postgres ledger units ${ledgerUnits} != units in live orders ${liveOrderUnits}`,
      needsDrained: true,
    });
  }
  if (stock < 0) {
    findings.push({
      ...product,
      kind: "product_negative_stock",
      detail: `postgres stock ${stock}`,
      needsDrained: false,
    });
  }
  return findings;
}

function redisFindings(
  audit: ProductAudit,
  price: number,
  key: string,
  redisPrice: string | null,
  redisAvailable: string | null,
): DriftFinding[] {
  const product = { subject: "product", id: audit.productId, needsDrained: true } as const;
  // Never below zero: a negative Postgres stock is reported above; Redis must not sell what is not there.
  const available = Math.max(0, audit.stock);
  if (redisPrice === null && redisAvailable === null) {
    return [
      {
        ...product,
        kind: "product_state_missing",
        detail: "redis product state missing",
        repair: {
          summary: `rebuilt: price ${price}, available ${available}`,
          write: (tx) => tx.hset(key, "price", price, "available", available),
        },
      },
    ];
  }
  const findings: DriftFinding[] = [];
  if (redisPrice === null || Number(redisPrice) !== price) {
    findings.push({
      ...product,
      kind: "product_price",
      detail: `redis price ${redisPrice ?? "missing"}, postgres price ${price}`,
      repair: { summary: `price = ${price}`, write: (tx) => tx.hset(key, "price", price) },
    });
  }
  if (redisAvailable === null || Number(redisAvailable) !== available) {
    findings.push({
      ...product,
      kind: "product_available",
      detail: `redis available ${redisAvailable ?? "missing"}, postgres stock ${audit.stock}`,
      repair: { summary: `available = ${available}`, write: (tx) => tx.hset(key, "available", available) },
    });
  }
  return findings;
}
