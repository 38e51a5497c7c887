// Per product: the Postgres invariant (received = stock + ledger units, ledger units = units in live orders,
// stock >= 0) and, with the queue drained, Redis' state against Postgres (price, available = stock, the
// product's own per-user cap).
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

  const rows = new Map(
    (
      await stores.global
        .selectFrom("products")
        .select(["id", "price", "max_units_per_user"])
        .where("id", "in", productIds)
        .execute()
    ).map((row) => [row.id, { price: Number(row.price), maxUnitsPerUser: row.max_units_per_user }]),
  );
  const stateKeys = audits.map((audit) => stores.keys.productState(audit.productId));
  await stores.redis.watch(...stateKeys);
  const pipeline = stores.redis.pipeline();
  for (const key of stateKeys) pipeline.hmget(key, "price", "available", "maxUnitsPerUser");
  const replies = (await pipeline.exec()) ?? [];
  return audits.flatMap((audit, i) => {
    const [error, state] = replies[i] ?? [new Error("no reply"), null];
    if (error) throw error;
    const [price, available, maxUnitsPerUser] = state as [string | null, string | null, string | null];
    return [
      ...postgresFindings(audit),
      ...redisFindings(audit, rows.get(audit.productId)!, stateKeys[i]!, {
        price,
        available,
        maxUnitsPerUser,
      }),
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

interface RedisProductState {
  price: string | null;
  available: string | null;
  maxUnitsPerUser: string | null;
}

function redisFindings(
  audit: ProductAudit,
  { price, maxUnitsPerUser }: { price: number; maxUnitsPerUser: number | null },
  key: string,
  redis: RedisProductState,
): DriftFinding[] {
  const { price: redisPrice, available: redisAvailable } = redis;
  const product = { subject: "product", id: audit.productId, needsDrained: true } as const;
  // Never below zero: a negative Postgres stock is reported above; Redis must not sell what is not there.
  const available = Math.max(0, audit.stock);
  if (redisPrice === null && redisAvailable === null) {
    // No cap field: the deployment's default applies, as for a product created without one.
    const cap = maxUnitsPerUser === null ? [] : ["maxUnitsPerUser", maxUnitsPerUser];
    return [
      {
        ...product,
        kind: "product_state_missing",
        detail: "redis product state missing",
        repair: {
          summary: `rebuilt: price ${price}, available ${available}${maxUnitsPerUser === null ? "" : `, maxUnitsPerUser ${maxUnitsPerUser}`}`,
          write: (tx) => tx.hset(key, "price", price, "available", available, ...cap),
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
  const redisCap = redis.maxUnitsPerUser === null ? null : Number(redis.maxUnitsPerUser);
  if (redisCap !== maxUnitsPerUser) {
    findings.push({
      ...product,
      kind: "product_max_units",
      detail: `redis maxUnitsPerUser ${redis.maxUnitsPerUser ?? "missing"}, postgres ${maxUnitsPerUser ?? "null (the default)"}`,
      repair:
        maxUnitsPerUser === null
          ? {
              summary: "maxUnitsPerUser removed (the default)",
              write: (tx) => tx.hdel(key, "maxUnitsPerUser"),
            }
          : {
              summary: `maxUnitsPerUser = ${maxUnitsPerUser}`,
              write: (tx) => tx.hset(key, "maxUnitsPerUser", maxUnitsPerUser),
            },
    });
  }
  return findings;
}
