// How long a worker waits, after a read that found fewer entries than half a batch, for more to join it.
// Every shard transaction costs about the same few statements whatever its size, and on a 2-vCPU machine those
// round trips, not the rows, were most of what applying cost: at 4,000 payments/s a fixed 50 ms wait left
// workers + Postgres at 49 % of a core, a 250 ms wait at 29 %. A fixed wait would also hold a lone payment
// on an idle system for the whole of it, so the wait grows with the read: a read of LINGER_FULL_AT entries or
// more waits the whole WORKER_LINGER_MS, a read of one waits 1/LINGER_FULL_AT of it.

/** Entries in one read from which a worker waits the full WORKER_LINGER_MS. */
export const LINGER_FULL_AT = 100;

/** ms to wait after a read of `found` entries, given WORKER_LINGER_MS and WORKER_BATCH_SIZE. */
export function lingerAfterRead(found: number, lingerMs: number, batchSize: number): number {
  if (found <= 0 || lingerMs <= 0 || found >= batchSize / 2) return 0;
  return Math.min(lingerMs, Math.ceil((lingerMs * found) / LINGER_FULL_AT));
}
