// A closed pre-queue round, ordered once, by the admission leader's tick at the room's start (room-tick.ts runs
// this when the tick script says a round awaits its order): its ticket ids read page by page, ordered with the
// key and comparator of @floodgate/node (whose verifyShuffleProof anyone checks the published proof with), and
// written back page by page (order-pre-queue-4.lua), the last page publishing the proof. Outside Redis because
// Redis's Lua has no SHA-256, and outside every request: a pre-queue of 100,000 costs the leader a few hundred
// ms of CPU, once, in slices (the final sort of the keys is one step).

import { byShuffleKey, shuffleKeyer, shuffleListHash } from "@floodgate/node";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { orderPreQueue } from "@floodgate/redis-scripts";
import type { AdmissionKeys, RoomKeySet } from "./admission-keys.ts";
import { roomScriptKeys } from "./room-script-keys.ts";
import { newShuffleSeed } from "./shuffle-seed.ts";

/** Ids per read and per written page: bounds each call's time in Redis, as the shuffle's move step does. */
const PAGE = 1000;
/** Tickets keyed between two turns of the event loop. */
const SLICE = 5000;
/** Reads of a list that changed while read (a revocation) before the next tick tries again. */
const READ_ATTEMPTS = 3;

export type OrderOutcome =
  /** The order is written and the proof published: the round moves from the next tick. */
  | "published"
  /** Nothing to order (no round closed, or published already). */
  | "not_awaited"
  /** A later leader epoch has ticked the room: it orders the round. */
  | "deposed"
  /** The list kept changing under the read, or another writer got in between: the next tick tries again. */
  | "unsettled";

export async function orderClosedRound(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  epoch: number,
): Promise<OrderOutcome> {
  const room = keys.room(roomId);
  const [round, awaits, committedSeed] = await redis.hmget(
    room.state,
    "shuffleRound",
    "shuffleAwaitsOrder",
    "shuffleSeed",
  );
  if (round == null || awaits == null) return "not_awaited";
  const seed = committedSeed ?? (await mintLateSeed(redis, room));
  const tickets = await readClosedRound(redis, room, Number(round));
  if (tickets === null) return "unsettled";
  const sorted = [...tickets].sort();
  const listHash = shuffleListHash(sorted);
  const ordered = await orderInSlices(seed, listHash, sorted);
  for (let offset = 0; offset === 0 || offset < sorted.length; offset += PAGE) {
    const page = await orderPreQueue.run(redis, {
      ...roomScriptKeys(room),
      leaderEpoch: epoch,
      round,
      listHash,
      size: sorted.length,
      offset,
      ordered: ordered.slice(offset, offset + PAGE),
      sorted: sorted.slice(offset, offset + PAGE),
    });
    if (page.result === "written") continue;
    if (page.result === "published" || page.result === "deposed" || page.result === "not_awaited") {
      return page.result;
    }
    return "unsettled";
  }
  return "unsettled";
}

/**
 * @floodgate/node's shuffleOrder, its keys computed a slice at a time with the event loop let go in between: the
 * leader is an intake process, and 100,000 hashes in one go would hold its requests for a noticeable while. The
 * tests hold the result equal to shuffleOrder's.
 */
async function orderInSlices(seed: string, listHash: string, sorted: readonly string[]): Promise<string[]> {
  const key = shuffleKeyer(seed, listHash);
  const keyed: { ticketId: string; key: string }[] = [];
  for (let from = 0; from < sorted.length; from += SLICE) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const ticketId of sorted.slice(from, from + SLICE)) keyed.push({ ticketId, key: key(ticketId) });
  }
  return keyed.sort(byShuffleKey).map(({ ticketId }) => ticketId);
}

/**
 * The round's ticket ids, or null when they changed while read. The round is closed, so nothing joins it; a
 * revocation (or a deposed leader's abandonment) can still take one out, which shifts the pages after it: a
 * count that stayed the same across the read proves the pages fit together.
 */
async function readClosedRound(
  redis: ScriptedRedis,
  room: RoomKeySet,
  round: number,
): Promise<string[] | null> {
  const upTo = `(${round + 1}`;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = await redis.zcount(room.early, round, upTo);
    const ids: string[] = [];
    for (let offset = 0; offset < before; offset += PAGE) {
      ids.push(...(await redis.zrangebyscore(room.early, round, upTo, "LIMIT", offset, PAGE)));
    }
    const after = await redis.zcount(room.early, round, upTo);
    if (after === before && new Set(ids).size === before) return ids;
  }
  return null;
}

/**
 * A round closed without a committed seed (its start was scheduled before seeds were committed): one minted
 * now, its commitment dated now, so the proof shows it was not made in advance. HSETNX in one MULTI: two leaders
 * minting at once keep the first seed, and read it back.
 */
async function mintLateSeed(redis: ScriptedRedis, room: RoomKeySet): Promise<string> {
  const minted = newShuffleSeed();
  await redis
    .multi()
    .hsetnx(room.state, "shuffleSeed", minted.seed)
    .hsetnx(room.state, "shuffleCommitment", minted.commitment)
    .hsetnx(room.state, "shuffleCommittedAt", minted.committedAt)
    .exec();
  return (await redis.hget(room.state, "shuffleSeed")) ?? minted.seed;
}
