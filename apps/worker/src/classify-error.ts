// Workers decide retry vs dead-letter from the kind of failure, never from the message text of one driver.
// Retryable: the shard is away or busy (the message itself is fine and must wait, not be dead-lettered).

/** A row the batch meant to insert was inserted by someone else meanwhile (a worker presumed dead woke up). */
export class ConcurrentApplyError extends Error {
  constructor(detail: string) {
    super(`concurrent apply detected: ${detail}`);
    this.name = "ConcurrentApplyError";
  }
}

const RETRYABLE_SQLSTATE = /^(08|53|57P0[1-4]|40001|40P01|55P03|58)/;
const RETRYABLE_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);

export function isRetryable(error: unknown): boolean {
  if (error instanceof ConcurrentApplyError) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (RETRYABLE_SQLSTATE.test(code) || RETRYABLE_NODE_CODES.has(code)))
    return true;
  // node-postgres reports a lost or refused connection without a code.
  return (
    typeof message === "string" &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/.test(
      message,
    )
  );
}
