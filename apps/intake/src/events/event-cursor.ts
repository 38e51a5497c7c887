// The events feed's cursor: opaque to the shop (base64url of JSON), it carries each shard's position, the
// (xid, position) of the last event handed out from that shard (event-feed-query.ts), and the `type` it was
// made for: a cursor that skipped other types' events must not be used to read them.
import type { WebhookEventType } from "@floodgate/domain";
import { ProblemError } from "../errors/error-catalogue.ts";

/** A shard's position: rows at or below (xid, position) were handed out, or skipped as another type's. */
export interface ShardPosition {
  xid: bigint;
  position: bigint;
}

export interface EventCursor {
  type: WebhookEventType | null;
  shards: ShardPosition[];
}

const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;
const START: ShardPosition = { xid: 0n, position: 0n };

export const startCursor = (type: WebhookEventType | null, shardCount: number): EventCursor => ({
  type,
  shards: Array.from({ length: shardCount }, () => START),
});

export function encodeCursor(cursor: EventCursor): string {
  const json = { v: 1, t: cursor.type, s: cursor.shards.map((s) => `${s.xid}.${s.position}`) };
  return Buffer.from(JSON.stringify(json)).toString("base64url");
}

const badCursor = (detail: string) =>
  new ProblemError("validation_error", {
    field: "after",
    detail,
    errors: [{ field: "after", pointer: "#/after", detail }],
  });

/**
 * The cursor `after` names, for a deployment of `shardCount` shards (a shard added since starts at its
 * beginning). Anything this route did not make, or made for another `type`, is a 400 naming `after`.
 */
export function decodeCursor(after: string, type: WebhookEventType | null, shardCount: number): EventCursor {
  const parsed = parse(after);
  if (parsed === undefined || parsed.s.length > shardCount) {
    throw badCursor("after is not a cursor this route answered (use a nextCursor as it was given)");
  }
  if (parsed.t !== type) {
    throw badCursor(
      `this cursor was made for ${parsed.t === null ? "every type" : `type=${parsed.t}`}: ask with the same type`,
    );
  }
  const shards = parsed.s.map((entry) => {
    const [xid, position] = entry.split(".");
    return { xid: BigInt(xid!), position: BigInt(position!) };
  });
  if (shards.some((s) => s.xid > MAX_XID8 || s.position > MAX_BIGINT)) {
    throw badCursor("after is not a cursor this route answered (use a nextCursor as it was given)");
  }
  while (shards.length < shardCount) shards.push(START);
  return { type, shards };
}

function parse(after: string): { t: WebhookEventType | null; s: string[] } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(after)) return undefined;
  try {
    const json: unknown = JSON.parse(Buffer.from(after, "base64url").toString("utf8"));
    if (json === null || typeof json !== "object") return undefined;
    const { v, t, s } = json as Record<string, unknown>;
    if (v !== 1 || !(t === null || typeof t === "string") || !Array.isArray(s)) return undefined;
    if (!s.every((entry) => typeof entry === "string" && /^[0-9]{1,20}\.[0-9]{1,20}$/.test(entry))) {
      return undefined;
    }
    return { t: t as WebhookEventType | null, s: s as string[] };
  } catch {
    return undefined;
  }
}
