// Per product: the Postgres invariant (received = stock + ledger units, ledger units = units in live orders,
// stock >= 0) and, with the queue drained, Redis' state against Postgres (price, available = stock, the
// product's own per-user cap, the units of orders awaiting payment: unpaid-order-units.ts), unless units of it
// are reserved by a request still in flight.
import { auditProducts, type ProductAudit } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { Cluster, Redis } from "ioredis";
import type { DriftFinding, SlotRead, SlotWrite } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";
import { reservationsPending } from "./reservations-pending.ts";
import { readUnpaidUnits, unpaidFields, unpaidFieldsOf } from "./unpaid-order-units.ts";

export async function listProductIds(stores: ReconcileStores): Promise<string[]> {
  const rows = await stores.global.selectFrom("products").select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
}

/**
 * One query on the global database and one per shard for the audit, one for the prices, and with
 * `compareRedis` each product's state and reservations (its own slot), all products' reads sent at once. Not
 * watched here: a repair reads them again under WATCH in its own transaction (slot-repairs.ts).
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
  const { keys } = stores;
  const [states, unpaid] = await Promise.all([
    Promise.all(audits.map((audit) => readProductRedis(stores.redis, keys, audit.productId))),
    readUnpaidUnits(stores.shards, productIds),
  ]);
  return audits.flatMap((audit, i) => {
    const state = states[i]!;
    const id = audit.productId;
    if (state.reservations > 0) {
      return [...postgresFindings(audit), reservationsPending("product", id, state.reservations)];
    }
    const read: SlotRead = {
      slot: `product ${id}`,
      keys: [keys.productState(id), keys.productReservations(id)],
      seen: JSON.stringify(state),
      read: async (redis) => JSON.stringify(await readProductRedis(redis, keys, id)),
    };
    const expected = { ...rows.get(id)!, unpaid: unpaidFields(unpaid.get(id) ?? new Map()) };
    return [...postgresFindings(audit), ...redisFindings(audit, expected, read, state)];
  });
}

interface RedisProductState {
  price: string | null;
  available: string | null;
  maxUnitsPerUser: string | null;
  /** `unpaid` and the `unpaid:<orderId>` fields, as unpaidFieldsOf lists them. */
  unpaid: (string | number)[];
  /** Units reserved by requests in flight (on a cluster; see reservations-pending.ts). */
  reservations: number;
}

async function readProductRedis(
  redis: Redis | Cluster,
  keys: QueueKeys,
  productId: string,
): Promise<RedisProductState> {
  // The whole hash: one field per unpaid order (an admin command, and only the orders awaiting payment).
  const [state, reservations] = await Promise.all([
    redis.hgetall(keys.productState(productId)),
    redis.zcard(keys.productReservations(productId)),
  ]);
  return {
    price: state.price ?? null,
    available: state.available ?? null,
    maxUnitsPerUser: state.maxUnitsPerUser ?? null,
    unpaid: unpaidFieldsOf(state),
    reservations,
  };
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
  {
    price,
    maxUnitsPerUser,
    unpaid,
  }: { price: number; maxUnitsPerUser: number | null; unpaid: (string | number)[] },
  read: SlotRead,
  redis: RedisProductState,
): DriftFinding[] {
  const { price: redisPrice, available: redisAvailable } = redis;
  const key = read.keys[0]!;
  const repair = (summary: string, write: SlotWrite["write"]) => ({ summary, writes: [{ read, write }] });
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
        repair: repair(
          `rebuilt: price ${price}, available ${available}${maxUnitsPerUser === null ? "" : `, maxUnitsPerUser ${maxUnitsPerUser}`}${unpaid.length === 0 ? "" : `, unpaid ${unpaid[1]}`}`,
          (tx) => tx.hset(key, "price", price, "available", available, ...cap, ...unpaid),
        ),
      },
    ];
  }
  const findings: DriftFinding[] = [];
  if (redisPrice === null || Number(redisPrice) !== price) {
    findings.push({
      ...product,
      kind: "product_price",
      detail: `redis price ${redisPrice ?? "missing"}, postgres price ${price}`,
      repair: repair(`price = ${price}`, (tx) => tx.hset(key, "price", price)),
    });
  }
  if (redisAvailable === null || Number(redisAvailable) !== available) {
    findings.push({
      ...product,
      kind: "product_available",
      detail: `redis available ${redisAvailable ?? "missing"}, postgres stock ${audit.stock}`,
      repair: repair(`available = ${available}`, (tx) => tx.hset(key, "available", available)),
    });
  }
  // The units that may come back: a room selling the product says sold out only when these are 0 too.
  if (JSON.stringify(redis.unpaid) !== JSON.stringify(unpaid)) {
    const redisFields = redis.unpaid.filter((_, i) => i % 2 === 0) as string[];
    findings.push({
      ...product,
      kind: "product_unpaid",
      detail: `redis unpaid ${describeUnpaid(redis.unpaid)}, postgres ${describeUnpaid(unpaid)} awaiting payment`,
      repair: repair(`unpaid = ${unpaid[1] ?? 0}`, (tx) => {
        if (redisFields.length > 0) tx.hdel(key, ...redisFields);
        if (unpaid.length > 0) tx.hset(key, ...unpaid);
      }),
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
          ? repair("maxUnitsPerUser removed (the default)", (tx) => tx.hdel(key, "maxUnitsPerUser"))
          : repair(`maxUnitsPerUser = ${maxUnitsPerUser}`, (tx) =>
              tx.hset(key, "maxUnitsPerUser", maxUnitsPerUser),
            ),
    });
  }
  return findings;
}

/** "5 units in 2 orders" from unpaid fields ["unpaid", total, "unpaid:<orderId>", units, ...]. */
const describeUnpaid = (fields: (string | number)[]) =>
  `${fields[1] ?? 0} units in ${Math.max(0, (fields.length - 2) / 2)} orders`;
