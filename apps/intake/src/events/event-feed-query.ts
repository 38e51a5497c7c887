// One page of the events feed: one query per shard, merged oldest first.
//
// Why a shard's events are read in (xid, position) order, and only below the horizon: `position` comes from a
// sequence at insert and `xid` is the writing transaction's id, and neither is the commit order: a batch that
// took a lower value may commit after one that took a higher. A reader that handed out the higher and
// remembered it would skip the lower when it commits. So each query also reads the horizon,
// pg_snapshot_xmin(pg_current_snapshot()) of its own snapshot: every transaction not finished when the
// snapshot was taken has an xid at or above it, and every later transaction a higher one. Rows below the
// horizon are all committed and visible, and any row still to come sorts after every one of them: handing
// out only those, in (xid, position) order, a cursor never passes a row that appears later. An event waits
// for the oldest transaction still writing on its Postgres server (a batch: milliseconds), no longer.
import type { ShardDatabase } from "@floodgate/db";
import type { EventFeedItem, WebhookEventType } from "@floodgate/domain";
import { type Kysely, sql } from "kysely";
import type { EventCursor, ShardPosition } from "./event-cursor.ts";

interface EventRow {
  horizon: string;
  event_id: string | null;
  event_type: WebhookEventType;
  data: Record<string, unknown>;
  created_at: Date;
  xid: string;
  position: string;
}

interface ShardPage {
  rows: (EventRow & { event_id: string })[];
  horizon: bigint;
}

async function readShard(
  db: Kysely<ShardDatabase>,
  after: ShardPosition,
  type: WebhookEventType | null,
  limit: number,
): Promise<ShardPage> {
  const { rows } = await sql<EventRow>`
    with h as (select pg_snapshot_xmin(pg_current_snapshot()) as horizon)
    select h.horizon::text as horizon, e.event_id, e.event_type, e.data, e.created_at,
           e.xid::text as xid, e.position::text as position
    from h left join lateral (
      select * from events
      where (xid, position) > (${after.xid.toString()}::xid8, ${after.position.toString()}::bigint)
        and xid < h.horizon ${type === null ? sql`` : sql`and event_type = ${type}`}
      order by xid, position
      limit ${limit}
    ) e on true`.execute(db);
  return {
    horizon: BigInt(rows[0]!.horizon),
    rows: rows.filter((row): row is EventRow & { event_id: string } => row.event_id !== null),
  };
}

export interface EventPage {
  data: EventFeedItem[];
  next: EventCursor;
}

export async function readEventPage(
  shards: Kysely<ShardDatabase>[],
  cursor: EventCursor,
  limit: number,
): Promise<EventPage> {
  const pages = await Promise.all(
    shards.map((db, i) => readShard(db, cursor.shards[i]!, cursor.type, limit)),
  );
  // Oldest first across shards: each shard's rows stay in their order (a merge takes a prefix of each).
  const heads = pages.map(() => 0);
  const data: EventFeedItem[] = [];
  const next = cursor.shards.slice();
  while (data.length < limit) {
    let pick = -1;
    for (const [i, page] of pages.entries()) {
      const row = page.rows[heads[i]!];
      if (row === undefined) continue;
      const best = pick < 0 ? undefined : pages[pick]!.rows[heads[pick]!]!;
      if (best === undefined || row.created_at.getTime() < best.created_at.getTime()) pick = i;
    }
    if (pick < 0) break;
    const row = pages[pick]!.rows[heads[pick]!++]!;
    data.push({
      id: row.event_id,
      type: row.event_type,
      createdAt: row.created_at.toISOString(),
      data: row.data,
    });
    next[pick] = { xid: BigInt(row.xid), position: BigInt(row.position) };
  }
  for (const [i, page] of pages.entries()) {
    // A shard read to its end below the horizon: nothing left there sorts before (horizon, 0), so the cursor
    // moves there, past rows of other types a filtered feed would otherwise read again on every poll.
    const exhausted = page.rows.length < limit && heads[i] === page.rows.length;
    if (exhausted && page.horizon > next[i]!.xid) next[i] = { xid: page.horizon, position: 0n };
  }
  return { data, next: { type: cursor.type, shards: next } };
}
