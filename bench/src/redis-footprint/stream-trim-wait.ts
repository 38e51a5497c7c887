// Waits for the workers to trim the partition streams after a phase: they drop acknowledged entries every few
// seconds (housekeeping.ts), always keeping the last delivered one, so XLEN falls in steps and never reaches 0
// while a group exists. The wait ends when the streams are empty, when XLEN has not fallen for `quietMs` (longer
// than the workers' trim period), or at `timeoutMs`; it says which, and how many entries were left.
import type { RedisClient } from "@floodgate/test-fixtures";

export interface StreamTrimWait {
  entriesLeft: number;
  ended: "empty" | "stopped falling" | "timeout";
  waitedMs: number;
}

export async function totalStreamLength(redis: RedisClient, streams: readonly string[]): Promise<number> {
  const lengths = await Promise.all(streams.map((stream) => redis.xlen(stream)));
  return lengths.reduce((sum, length) => sum + length, 0);
}

export async function awaitStreamTrim(
  redis: RedisClient,
  streams: readonly string[],
  options: { quietMs?: number; timeoutMs?: number; pollMs?: number } = {},
): Promise<StreamTrimWait> {
  // The workers trim every 5 s: a quiet spell shorter than that would stop between two trims.
  const quietMs = options.quietMs ?? 7000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 500;
  const started = Date.now();
  let length = await totalStreamLength(redis, streams);
  let lastFall = started;
  while (true) {
    const now = Date.now();
    if (length === 0) return { entriesLeft: 0, ended: "empty", waitedMs: now - started };
    if (now - lastFall >= quietMs)
      return { entriesLeft: length, ended: "stopped falling", waitedMs: now - started };
    if (now - started >= timeoutMs) return { entriesLeft: length, ended: "timeout", waitedMs: now - started };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    const next = await totalStreamLength(redis, streams);
    if (next < length) lastFall = Date.now();
    length = next;
  }
}
