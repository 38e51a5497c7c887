// `admitPerSecond: "auto"`: the leader sets such a room's admit rate from the pipeline, so the room never
// admits faster than the workers apply. Measured every backlog reading (backlog-gauge.ts, every 500 ms):
//   - workers busy long enough to be measured (workerRate known): the rate is what they applied per second over
//     the last busy stretch (up to 5 s), reduced when the lag (the backlog) is more than TARGET_DRAIN_SECONDS
//     of their work: rate = workerRate * min(1, TARGET_DRAIN_SECONDS / drainSeconds). Workers that apply
//     nothing with a lasting backlog (stopped, or their shard away) give the floor;
//   - workers with no backlog at all (idle: they apply everything sent): the rate grows, doubling per second,
//     up to MAX_ADMIT_PER_SECOND, until the load it lets in makes them busy enough to be measured;
//   - a backlog too recent to measure: the rate stays where it is.
// The first value (a new leader with nothing published) is AUTO_ADMIT_START_PER_SECOND; a new leader takes the
// last one published, when the signal has not expired. The rate is the pipeline's: the `auto` rooms share it
// equally (a room's share is never below the floor).
import { MAX_ADMIT_PER_SECOND } from "@floodgate/domain";
import type { BacklogReading } from "./backlog-gauge.ts";

export const AUTO_ADMIT_START_PER_SECOND = 10;
/** Never less: a room whose workers stopped still moves, one shopper a second, and learns when they are back. */
export const AUTO_ADMIT_FLOOR_PER_SECOND = 1;
/** A backlog longer than this much of the workers' work slows admissions in proportion. */
export const AUTO_TARGET_DRAIN_SECONDS = 2;

const round = (rate: number) => Math.round(rate * 10) / 10;
const bounded = (rate: number) =>
  round(Math.min(MAX_ADMIT_PER_SECOND, Math.max(AUTO_ADMIT_FLOOR_PER_SECOND, rate)));

/** The next pipeline rate after a reading taken `elapsedMs` after the previous one. */
export function nextAutoAdmitRate(previous: number, reading: BacklogReading, elapsedMs: number): number {
  const { workerRate, drainSeconds, backlog } = reading;
  if (workerRate !== null) {
    const drain = drainSeconds ?? 0;
    const slowdown = drain > AUTO_TARGET_DRAIN_SECONDS ? AUTO_TARGET_DRAIN_SECONDS / drain : 1;
    return bounded(workerRate * slowdown);
  }
  if (backlog === 0) return bounded(previous * 2 ** (Math.min(elapsedMs, 1000) / 1000));
  return bounded(previous);
}

/** One `auto` room's share of the pipeline's rate. */
export function autoRoomShare(pipelineRate: number, autoRooms: number): number {
  return bounded(pipelineRate / Math.max(1, autoRooms));
}

/** A published rate (the backlog signal's autoAdmitPerSecond), or the start value when none is readable. */
export function startingAutoAdmitRate(published: string | null | undefined): number {
  const rate = Number(published);
  return published && Number.isFinite(rate) && rate > 0 ? bounded(rate) : AUTO_ADMIT_START_PER_SECOND;
}
