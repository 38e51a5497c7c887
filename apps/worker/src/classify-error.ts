// Workers decide retry vs dead-letter from the kind of failure, never from the message text of one driver.
// Retryable: a store is away, slow or refusing (StoreUnavailableError, from @floodgate/db), or another worker
// applied the same ids meanwhile. The message itself is fine and must wait: such a failure never counts toward
// dead-lettering. Anything else is the message's own failure.
import { StoreUnavailableError, storeUnavailable } from "@floodgate/db";
import { BucketMovedError } from "./bucket-fence.ts";

/** A row the batch meant to insert was inserted by someone else meanwhile (a worker presumed dead woke up). */
export class ConcurrentApplyError extends Error {
  constructor(detail: string) {
    super(`concurrent apply detected: ${detail}`);
    this.name = "ConcurrentApplyError";
  }
}

/**
 * Whether the failure is a store's (or a concurrent apply's), not the message's. Postgres failures reach here
 * already typed by the pool (create-database.ts); a SQLSTATE or a socket error code from elsewhere is typed here.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ConcurrentApplyError || error instanceof StoreUnavailableError) return true;
  if (error instanceof BucketMovedError) return true;
  return storeUnavailable(error, "postgres") !== undefined;
}
