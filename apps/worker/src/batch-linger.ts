// How long a worker waits, after a read that found fewer entries than half a batch, for more to join it.
// Every shard transaction costs about the same few statements whatever its size, and on a 2-vCPU machine those
// round trips, not the rows, were most of what applying cost: at 4,000 payments/s a fixed 50 ms wait left
// workers + Postgres at 49 % of a core, a 250 ms wait at 29 %. A fixed 250 ms would also hold a lone payment
// on an idle system that long, so the wait grows with the read: LINGER_FLOOR_MS for a read of a few entries
// (the fixed wait before), the whole WORKER_LINGER_MS from LINGER_FULL_AT entries on, in proportion between.
//
// Why a floor and not 1/LINGER_FULL_AT per entry: a first version waited 3 ms after a read of one entry, and a
// fresh clone's CI then timed out in apps/worker/test/orders-expiry.test.ts. The cause, found later, was an end
// request racing its order into the shard (orders/apply-order-ends.ts now makes such a request wait and retry);
// a shorter wait only made that race likelier. The floor stays because it is the wait an idle system always had.

/** Entries in one read from which a worker waits the full WORKER_LINGER_MS. */
export const LINGER_FULL_AT = 100;
/** The shortest wait after a read that found entries (capped by WORKER_LINGER_MS itself). */
export const LINGER_FLOOR_MS = 50;

/** ms to wait after a read of `found` entries, given WORKER_LINGER_MS and WORKER_BATCH_SIZE. */
export function lingerAfterRead(found: number, lingerMs: number, batchSize: number): number {
  if (found <= 0 || lingerMs <= 0 || found >= batchSize / 2) return 0;
  const proportional = Math.ceil((lingerMs * found) / LINGER_FULL_AT);
  return Math.min(lingerMs, Math.max(LINGER_FLOOR_MS, proportional));
}
