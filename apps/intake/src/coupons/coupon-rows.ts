// Coupon definitions <-> the global database's `coupons` rows, and the JSON the admin routes answer.
import type { CouponsTable, GlobalDatabase } from "@floodgate/db";
import type { CouponDefinition } from "@floodgate/domain";
import type { Kysely, Selectable } from "kysely";

export function definitionFromRow(row: Selectable<CouponsTable>): CouponDefinition {
  return {
    id: row.id,
    name: row.name,
    quantity: row.quantity,
    startsAt: row.starts_at?.getTime() ?? null,
    endsAt: row.ends_at?.getTime() ?? null,
    discount: { type: row.discount_type, value: row.discount_value },
    createdAt: row.created_at.getTime(),
  };
}

export async function loadCouponDefinition(
  db: Kysely<GlobalDatabase>,
  id: string,
): Promise<CouponDefinition | null> {
  const row = await db.selectFrom("coupons").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? definitionFromRow(row) : null;
}

export async function insertCouponDefinition(
  db: Kysely<GlobalDatabase>,
  coupon: CouponDefinition,
): Promise<void> {
  await db
    .insertInto("coupons")
    .values({
      id: coupon.id,
      name: coupon.name,
      quantity: coupon.quantity,
      starts_at: coupon.startsAt === null ? null : new Date(coupon.startsAt),
      ends_at: coupon.endsAt === null ? null : new Date(coupon.endsAt),
      discount_type: coupon.discount.type,
      discount_value: coupon.discount.value,
      created_at: new Date(coupon.createdAt),
    })
    .execute();
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function couponJson(coupon: CouponDefinition) {
  return {
    id: coupon.id,
    name: coupon.name,
    quantity: coupon.quantity,
    startsAt: iso(coupon.startsAt),
    endsAt: iso(coupon.endsAt),
    discount: coupon.discount,
    createdAt: new Date(coupon.createdAt).toISOString(),
  };
}
