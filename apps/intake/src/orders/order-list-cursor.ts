// The cursor of GET /v1/orders: the position of the last order a page gave, (created_at, id), as opaque
// base64url. The time is the shard's own value to the microsecond, as Postgres prints it (the JavaScript Date a
// row arrives as keeps milliseconds), so "strictly before the cursor" is exact whatever a row holds. Only the
// one canonical spelling is read: a cursor is ours, and a second spelling of one would be a second cursor.
import { isCanonicalBase64url, ORDER_ID_PATTERN } from "@floodgate/domain";

export interface OrderListPosition {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: fixed width, so text order is time order. */
  createdAt: string;
  id: string;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ORDER_ID = new RegExp(ORDER_ID_PATTERN);

export function encodeOrderListCursor(position: OrderListPosition): string {
  return Buffer.from(`${position.createdAt} ${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names, or undefined when it is not one this route gave. */
export function decodeOrderListCursor(cursor: string): OrderListPosition | undefined {
  if (!isCanonicalBase64url(cursor)) return undefined;
  const [createdAt, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split(" ");
  if (createdAt === undefined || id === undefined || rest.length > 0) return undefined;
  if (!TIME.test(createdAt) || !ORDER_ID.test(id)) return undefined;
  // A real instant: 2026-02-30 matches the pattern but is not one (read to the millisecond, as Date can).
  const toMs = `${createdAt.slice(0, 23)}Z`;
  const date = new Date(toMs);
  if (Number.isNaN(date.getTime()) || date.toISOString() !== toMs) return undefined;
  return { createdAt, id };
}

/** Newest first: a before b when a's time is later, or the same and its id larger (byte order, as Postgres "C"). */
export function newerFirst(a: OrderListPosition, b: OrderListPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? -1 : 1;
  return a.id === b.id ? 0 : a.id > b.id ? -1 : 1;
}
