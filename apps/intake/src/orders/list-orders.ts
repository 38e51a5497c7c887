// One page of GET /v1/orders: newest first by (created_at, id), the orders strictly past the cursor in that order
// (older, or as old with a smaller id). A user's orders are on the user's shard (one query); all orders are on
// every shard, so each shard is asked for its first `limit + 1` past the cursor and the answers are merged: the
// first `limit + 1` of all orders are among them, and the one past `limit` says whether a next page exists. One
// query per shard per page, items included.
//
// A bucket being moved has its rows on two shards for a moment (copied to the new one, not yet deleted from the
// old: apps/cli/src/shards/bucket-mover.ts). Each shard is asked only for the buckets the map gives it, so such
// an order is listed once, from whichever shard owns it for this page's read of the map.
import type { ShardDatabase } from "@floodgate/db";
import { BUCKET_COUNT, bucketCodeOf, type OrderView, type StoredOrderStatus } from "@floodgate/domain";
import { bucketForUser, type ShardMap } from "@floodgate/shard-router";
import { type Kysely, sql } from "kysely";
import type { Shards } from "../plugins/shards-plugin.ts";
import { encodeOrderListCursor, newerFirst, type OrderListPosition } from "./order-list-cursor.ts";
import { type OrderLine, orderViewOfRow } from "./order-row-view.ts";

export interface OrderListFilter {
  userId?: string;
  status?: StoredOrderStatus;
  /** The last order the page before gave (its cursor). */
  after?: OrderListPosition;
  limit: number;
}

export interface OrderPage {
  data: OrderView[];
  /** Where the next page starts; null when nothing was left after this one as the shards answered it. */
  nextCursor: string | null;
}

interface ListedOrder {
  position: OrderListPosition;
  view: OrderView;
}

export async function listOrders(shards: Shards, filter: OrderListFilter): Promise<OrderPage> {
  const map = shards.map; // one reading for the whole page: every bucket is asked of exactly one shard
  const reads =
    filter.userId === undefined
      ? bucketCodesByShard(map).flatMap((codes, shard) =>
          // A shard that owns no bucket (all moved away) holds no order this page may list.
          codes.length === 0 ? [] : [readShard(shards.databases[shard]!, filter, codes)],
        )
      : [readShard(shards.databases[map.shardForBucket(bucketForUser(filter.userId))]!, filter)];
  const merged = (await Promise.all(reads)).flat().sort((a, b) => newerFirst(a.position, b.position));
  const page = merged.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    data: page.map((order) => order.view),
    nextCursor: merged.length > filter.limit && last ? encodeOrderListCursor(last.position) : null,
  };
}

/** A shard's first `limit + 1` orders past the cursor, of the buckets it owns (all of a user's: one bucket). */
async function readShard(
  db: Kysely<ShardDatabase>,
  filter: OrderListFilter,
  bucketCodes?: string[],
): Promise<ListedOrder[]> {
  const { userId, status, after } = filter;
  const rows = await db
    .selectFrom("orders")
    .selectAll()
    .select([
      // The exact value (a Date keeps milliseconds), fixed width so that its text order is its time order.
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as(
        "position_time",
      ),
      sql<OrderLine[]>`coalesce((
        select json_agg(json_build_object('productId', i.product_id, 'quantity', i.quantity,
                                          'unitPrice', i.unit_price) order by i.line)
        from order_items i where i.order_id = orders.id), '[]'::json)`.as("lines"),
    ])
    .$if(userId !== undefined, (q) => q.where("user_id", "=", userId!))
    .$if(status !== undefined, (q) => q.where("status", "=", status!))
    .$if(bucketCodes !== undefined, (q) =>
      q.where(sql<boolean>`substr(id, 15, 2) = any(${bucketCodes}::text[])`),
    )
    // Byte order for ids (the "C" collation), the order the merge above compares them in.
    .$if(after !== undefined, (q) =>
      q.where(
        sql<boolean>`(created_at, id collate "C") < (${after!.createdAt}::timestamptz, ${after!.id} collate "C")`,
      ),
    )
    .orderBy("created_at", "desc")
    .orderBy(sql`id collate "C"`, "desc")
    .limit(filter.limit + 1)
    .execute();
  return rows.map(({ position_time, lines, ...row }) => ({
    position: { createdAt: position_time, id: row.id },
    view: orderViewOfRow(row, lines),
  }));
}

const codesOfMap = new WeakMap<ShardMap, string[][]>();

/** Per shard, the two-character codes of the buckets the map gives it (computed once per map). */
function bucketCodesByShard(map: ShardMap): string[][] {
  let codes = codesOfMap.get(map);
  if (codes === undefined) {
    codes = Array.from({ length: map.shardCount }, () => []);
    for (let bucket = 0; bucket < BUCKET_COUNT; bucket++) {
      codes[map.shardForBucket(bucket)]!.push(bucketCodeOf(bucket));
    }
    codesOfMap.set(map, codes);
  }
  return codes;
}
