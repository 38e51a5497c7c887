// Redis' used_memory (INFO memory) and key count (DBSIZE), summed over the masters of a cluster. Both are the
// whole database's: the bench Redis holds only bench runs' keys, but another run's keys (or their expiry) move
// them too. The allocator returns freed memory lazily and INFO is a snapshot, so the reading waits a short
// settle first: a figure read the moment the last write landed swings by tens of kilobytes.
import { countKeys, forEachMaster, type RedisClient } from "@floodgate/test-fixtures";

export const MEMORY_SETTLE_MS = 1000;

export interface RedisMemoryReading {
  /** used_memory in bytes. */
  usedMemory: number;
  /** DBSIZE. */
  keys: number;
}

export function parseUsedMemory(info: string): number {
  const match = /^used_memory:(\d+)/m.exec(info);
  if (!match) throw new Error("INFO memory has no used_memory line");
  return Number(match[1]);
}

export async function readRedisMemory(
  redis: RedisClient,
  settleMs: number = MEMORY_SETTLE_MS,
): Promise<RedisMemoryReading> {
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  const used = await forEachMaster(redis, async (node) => parseUsedMemory(await node.info("memory")));
  return { usedMemory: used.reduce((sum, bytes) => sum + bytes, 0), keys: await countKeys(redis) };
}

/** Growth per accepted payment, whole bytes; null with nothing accepted. Negative when something else freed more. */
export function bytesPerAccepted(usedBefore: number, usedAfter: number, accepted: number): number | null {
  return accepted > 0 ? Math.round((usedAfter - usedBefore) / accepted) : null;
}
