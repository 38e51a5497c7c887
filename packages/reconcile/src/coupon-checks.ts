// Per coupon: the shards' issues against the definition (no more than its quantity, one per user) and, with
// the queue drained, Redis' state against them: the definition fields, `issued` = rows, holders = the rows'
// users, and each issue's redemption record (its `orderId` naming the live order that uses it, if any), unless
// units of it are reserved by a request still in flight.

import type { CouponsTable } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { Cluster, Redis } from "ioredis";
import type { Selectable } from "kysely";
import { type CouponIssueRow, checkIssueRecords } from "./coupon-issue-records.ts";
import type { DriftFinding, SlotRead, SlotWrite } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";
import { reservationsPending } from "./reservations-pending.ts";

export type CouponRow = Selectable<CouponsTable>;

const HSCAN_COUNT = 1000;
const HSET_CHUNK = 1000;

export async function listCoupons(stores: ReconcileStores): Promise<CouponRow[]> {
  return stores.global.selectFrom("coupons").selectAll().orderBy("id").execute();
}

/**
 * One query per shard for the issues; with `compareRedis` the state, the holders, the reservations and the
 * records. Not watched here: a repair reads the coupon's slot again under WATCH (slot-repairs.ts).
 */
export async function checkCoupon(
  stores: ReconcileStores,
  coupon: CouponRow,
  compareRedis: boolean,
): Promise<DriftFinding[]> {
  const rows = (
    await Promise.all(
      stores.shards.map((db) =>
        db
          .selectFrom("issued_coupons")
          .select(["id", "user_id", "status", "order_id"])
          .where("coupon_id", "=", coupon.id)
          .execute(),
      ),
    )
  ).flat();
  const findings = postgresFindings(coupon, rows);
  if (!compareRedis) return findings;
  const { keys } = stores;
  const redis = await readCouponRedis(stores.redis, keys, coupon.id);
  if (redis.reservations > 0)
    return [...findings, reservationsPending("coupon", coupon.id, redis.reservations)];
  const read: SlotRead = {
    slot: `coupon ${coupon.id}`,
    keys: [keys.couponState(coupon.id), keys.couponHolders(coupon.id), keys.couponReservations(coupon.id)],
    seen: snapshot(redis),
    read: async (connection) => snapshot(await readCouponRedis(connection, keys, coupon.id)),
  };
  findings.push(...stateFindings(coupon, rows.length, read, redis.state));
  findings.push(...holderFindings(coupon, rows, read, redis.holders));
  findings.push(...(await checkIssueRecords(stores, coupon, rows)));
  return findings;
}

interface RedisCouponState {
  state: Record<string, string>;
  holders: Map<string, string>;
  /** Units reserved by requests in flight (on a cluster; see reservations-pending.ts). */
  reservations: number;
}

async function readCouponRedis(
  redis: Redis | Cluster,
  keys: QueueKeys,
  couponId: string,
): Promise<RedisCouponState> {
  const [state, holders, reservations] = await Promise.all([
    redis.hgetall(keys.couponState(couponId)),
    readHolders(redis, keys.couponHolders(couponId)),
    redis.zcard(keys.couponReservations(couponId)),
  ]);
  return { state, holders, reservations };
}

/** Field order aside (a hash's order is not its content), what was read. */
function snapshot({ state, holders, reservations }: RedisCouponState): string {
  const byKey = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return JSON.stringify([Object.entries(state).sort(byKey), [...holders].sort(byKey), reservations]);
}

function postgresFindings(coupon: CouponRow, rows: CouponIssueRow[]): DriftFinding[] {
  const findings: DriftFinding[] = [];
  const subject = { subject: "coupon", id: coupon.id, needsDrained: false } as const;
  if (rows.length > coupon.quantity) {
    findings.push({
      ...subject,
      kind: "coupon_over_issued",
      detail: `issues on the shards ${rows.length} > quantity ${coupon.quantity}`,
    });
  }
  // UNIQUE (coupon_id, user_id) holds per shard; a user on two shards would take a changed shard map.
  const perUser = new Map<string, number>();
  for (const row of rows) perUser.set(row.user_id, (perUser.get(row.user_id) ?? 0) + 1);
  const twice = [...perUser].filter(([, count]) => count > 1).map(([user]) => user);
  if (twice.length > 0) {
    findings.push({
      ...subject,
      kind: "coupon_duplicate_holder",
      detail: `postgres: users holding it more than once: ${twice.slice(0, 5).join(", ")}${twice.length > 5 ? ` and ${twice.length - 5} more` : ""}`,
    });
  }
  return findings;
}

function stateFindings(
  coupon: CouponRow,
  issued: number,
  read: SlotRead,
  state: Record<string, string>,
): DriftFinding[] {
  const key = read.keys[0]!;
  const repair = (summary: string, write: SlotWrite["write"]) => ({ summary, writes: [{ read, write }] });
  const subject = { subject: "coupon", id: coupon.id, needsDrained: true } as const;
  // The format writeCouponState uses: the window in epoch ms, "" for none.
  const definition = {
    quantity: String(coupon.quantity),
    startsAt: coupon.starts_at ? String(coupon.starts_at.getTime()) : "",
    endsAt: coupon.ends_at ? String(coupon.ends_at.getTime()) : "",
  };
  if (Object.keys(state).length === 0) {
    return [
      {
        ...subject,
        kind: "coupon_state_missing",
        detail: "redis coupon state missing",
        repair: repair(`rebuilt from the definition, issued ${issued}`, (tx) =>
          tx.hset(key, { ...definition, issued }),
        ),
      },
    ];
  }
  const findings: DriftFinding[] = [];
  const changed = Object.entries(definition).filter(([field, value]) => state[field] !== value);
  if (changed.length > 0) {
    const fix = Object.fromEntries(changed);
    findings.push({
      ...subject,
      kind: "coupon_definition",
      detail: `redis ${changed.map(([field]) => `${field} ${state[field] ?? "missing"}`).join(", ")}; definition ${changed.map(([field, value]) => `${field} ${value || '""'}`).join(", ")}`,
      repair: repair("set from the definition", (tx) => tx.hset(key, fix)),
    });
  }
  if (state.issued !== String(issued)) {
    findings.push({
      ...subject,
      kind: "coupon_issued_count",
      detail: `redis issued ${state.issued ?? "missing"}, issues on the shards ${issued}`,
      repair: repair(`issued = ${issued}`, (tx) => tx.hset(key, "issued", issued)),
    });
  }
  return findings;
}

/** HSCAN, not HGETALL: a drop's holders may be many, and one huge reply would stall the intake's calls. */
async function readHolders(redis: Redis | Cluster, key: string): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(key, cursor, "COUNT", HSCAN_COUNT);
    cursor = next;
    for (let i = 0; i + 1 < flat.length; i += 2) holders.set(flat[i]!, flat[i + 1]!);
  } while (cursor !== "0");
  return holders;
}

function holderFindings(
  coupon: CouponRow,
  rows: CouponIssueRow[],
  read: SlotRead,
  holders: Map<string, string>,
): DriftFinding[] {
  const key = read.keys[1]!;
  const expected = new Map(rows.map((row) => [row.user_id, row.id]));
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const [user, issueId] of expected) {
    const held = holders.get(user);
    if (held === undefined) missing.push(user);
    else if (held !== issueId) wrong.push(user);
  }
  const extra = [...holders.keys()].filter((user) => !expected.has(user));
  if (missing.length + wrong.length + extra.length === 0) return [];
  const toSet = [...missing, ...wrong].flatMap((user) => [user, expected.get(user)!]);
  const parts = [
    missing.length > 0 ? `${missing.length} missing` : "",
    wrong.length > 0 ? `${wrong.length} naming another issue` : "",
    extra.length > 0 ? `${extra.length} without an issue in postgres` : "",
  ].filter(Boolean);
  return [
    {
      subject: "coupon",
      id: coupon.id,
      kind: "coupon_holders",
      detail: `redis holders: ${parts.join(", ")} (issues on the shards ${rows.length}, redis holders ${holders.size})`,
      needsDrained: true,
      repair: {
        summary: `holders = the ${rows.length} issues' users`,
        writes: [
          {
            read,
            write: (tx) => {
              for (let i = 0; i < toSet.length; i += 2 * HSET_CHUNK)
                tx.hset(key, ...toSet.slice(i, i + 2 * HSET_CHUNK));
              for (let i = 0; i < extra.length; i += HSET_CHUNK)
                tx.hdel(key, ...extra.slice(i, i + HSET_CHUNK));
            },
          },
        ],
      },
    },
  ];
}
