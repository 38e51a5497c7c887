// Per coupon: the shards' issues against the definition (no more than its quantity, one per user) and, with
// the queue drained, Redis' state against them: the definition fields, `issued` = rows, holders = the rows'
// users, and each issue's redemption record (its `orderId` naming the live order that uses it, if any).

import type { CouponsTable } from "@floodgate/db";
import type { Selectable } from "kysely";
import { type CouponIssueRow, checkIssueRecords } from "./coupon-issue-records.ts";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

export type CouponRow = Selectable<CouponsTable>;

const HSCAN_COUNT = 1000;
const HSET_CHUNK = 1000;

export async function listCoupons(stores: ReconcileStores): Promise<CouponRow[]> {
  return stores.global.selectFrom("coupons").selectAll().orderBy("id").execute();
}

/** One query per shard for the issues; with `compareRedis` a WATCH, the state, the holders and the records. */
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
  const stateKey = stores.keys.couponState(coupon.id);
  const holdersKey = stores.keys.couponHolders(coupon.id);
  await stores.redis.watch(stateKey, holdersKey);
  findings.push(...stateFindings(coupon, rows.length, stateKey, await stores.redis.hgetall(stateKey)));
  findings.push(...holderFindings(coupon, rows, holdersKey, await readHolders(stores, holdersKey)));
  findings.push(...(await checkIssueRecords(stores, coupon, rows)));
  return findings;
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
  key: string,
  state: Record<string, string>,
): DriftFinding[] {
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
        repair: {
          summary: `rebuilt from the definition, issued ${issued}`,
          write: (tx) => tx.hset(key, { ...definition, issued }),
        },
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
      repair: { summary: "set from the definition", write: (tx) => tx.hset(key, fix) },
    });
  }
  if (state.issued !== String(issued)) {
    findings.push({
      ...subject,
      kind: "coupon_issued_count",
      detail: `redis issued ${state.issued ?? "missing"}, issues on the shards ${issued}`,
      repair: { summary: `issued = ${issued}`, write: (tx) => tx.hset(key, "issued", issued) },
    });
  }
  return findings;
}

/** HSCAN, not HGETALL: a drop's holders may be many, and one huge reply would stall the intake's calls. */
async function readHolders(stores: ReconcileStores, key: string): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  let cursor = "0";
  do {
    const [next, flat] = await stores.redis.hscan(key, cursor, "COUNT", HSCAN_COUNT);
    cursor = next;
    for (let i = 0; i + 1 < flat.length; i += 2) holders.set(flat[i]!, flat[i + 1]!);
  } while (cursor !== "0");
  return holders;
}

function holderFindings(
  coupon: CouponRow,
  rows: CouponIssueRow[],
  key: string,
  holders: Map<string, string>,
): DriftFinding[] {
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
        write: (tx) => {
          for (let i = 0; i < toSet.length; i += 2 * HSET_CHUNK)
            tx.hset(key, ...toSet.slice(i, i + 2 * HSET_CHUNK));
          for (let i = 0; i < extra.length; i += HSET_CHUNK) tx.hdel(key, ...extra.slice(i, i + HSET_CHUNK));
        },
      },
    },
  ];
}
