// Redis memory per accepted payment once applied (issue 30, target 7): used_memory read before a phase's load,
// and again once every accepted payment is applied and the workers have trimmed the streams. What stays is what
// a payment leaves behind for its TTLs: its idempotency key (IDEMPOTENCY_TTL_SECONDS), its final status
// (STATUS_TTL_SECONDS) and whatever stream entries the trim keeps.
import { connectRedis, type RedisClient } from "@floodgate/test-fixtures";
import { formatCount, log } from "../harness/progress-line.ts";
import { bytesPerAccepted, MEMORY_SETTLE_MS, readRedisMemory } from "./redis-memory-reading.ts";
import { awaitStreamTrim, type StreamTrimWait } from "./stream-trim-wait.ts";
import type { RedisFootprint } from "./system-footprint.ts";

export interface RedisMemory {
  usedBefore: number;
  usedAfter: number;
  /** (usedAfter - usedBefore) / accepted, whole bytes; null with nothing accepted. */
  bytesPerAccepted: number | null;
  accepted: number;
  keysBefore: number;
  keysAfter: number;
  /** Entries left in the system's partition streams when the trim wait ended, and why it ended. */
  streamEntriesLeft: number;
  streamTrim: StreamTrimWait["ended"];
  idempotencyTtlSeconds: number;
  statusTtlSeconds: number;
  settleMs: number;
  note: string;
}

const NOTE =
  "used_memory and DBSIZE are the whole Redis database's (every key in it, not only this system's); each read after a settle";

export interface MemoryMeasure {
  /** Call once every accepted payment is applied: waits for the trim, reads again, closes the connection. */
  finish(accepted: number): Promise<RedisMemory | null>;
}

/** Reads the "before" figures now; a failed read is logged and leaves the measure out (null), never the run. */
export async function startMemoryMeasure(footprint: RedisFootprint): Promise<MemoryMeasure> {
  const redis: RedisClient = connectRedis(footprint.redisUrl, { maxRetriesPerRequest: 2 });
  const failed = (error: unknown) => {
    log(`Redis memory not measured: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  };
  const before = await readRedisMemory(redis).catch(failed);
  return {
    async finish(accepted) {
      try {
        if (before === null) return null;
        const trim = await awaitStreamTrim(redis, footprint.streams);
        const after = await readRedisMemory(redis);
        return {
          usedBefore: before.usedMemory,
          usedAfter: after.usedMemory,
          bytesPerAccepted: bytesPerAccepted(before.usedMemory, after.usedMemory, accepted),
          accepted,
          keysBefore: before.keys,
          keysAfter: after.keys,
          streamEntriesLeft: trim.entriesLeft,
          streamTrim: trim.ended,
          idempotencyTtlSeconds: footprint.idempotencyTtlSeconds,
          statusTtlSeconds: footprint.statusTtlSeconds,
          settleMs: MEMORY_SETTLE_MS,
          note: NOTE,
        };
      } catch (error) {
        return failed(error);
      } finally {
        redis.disconnect();
      }
    },
  };
}

const megabytes = (bytes: number) => `${bytes < 0 ? "-" : "+"}${(Math.abs(bytes) / 1_000_000).toFixed(1)} MB`;

/** "Redis memory: 423 B per accepted payment once applied (10,430 payments, used_memory +4.4 MB; ...)" */
export function redisMemoryLine(memory: RedisMemory): string {
  const perPayment = memory.bytesPerAccepted === null ? "n/a" : `${formatCount(memory.bytesPerAccepted)} B`;
  return (
    `Redis memory: ${perPayment} per accepted payment once applied (${formatCount(memory.accepted)} payments, ` +
    `used_memory ${megabytes(memory.usedAfter - memory.usedBefore)}; STATUS_TTL_SECONDS ${memory.statusTtlSeconds}, ` +
    `IDEMPOTENCY_TTL_SECONDS ${memory.idempotencyTtlSeconds}); keys ${formatCount(memory.keysBefore)} -> ` +
    `${formatCount(memory.keysAfter)}, ${formatCount(memory.streamEntriesLeft)} stream entries left (${memory.streamTrim}); ` +
    `whole database, read after a ${memory.settleMs / 1000} s settle`
  );
}
