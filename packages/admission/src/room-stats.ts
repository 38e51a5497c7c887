// What a room looks like from outside, in one pipeline: how many wait, whether it queues, how many it admitted
// in the last minute and at what rate lately (the rate etaSeconds divides by, once it means something). The
// pipeline reads the room's keys only: one slot, as a Redis Cluster requires of a pipeline.
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";
import { AUTO_ADMIT_START_PER_SECOND } from "./auto-admit-rate.ts";

export interface RoomStats {
  queueing: boolean;
  waiting: number;
  admittedLastMinute: number;
  /**
   * Admissions per second over the seconds the room has been admitting, of the last 10 whole ones: from the
   * oldest of them with an admission (measuredSeconds). A room that opened 2 s ago has admitted for 2 s, not 10.
   */
  measuredAdmitRate: number;
  /** How many seconds measuredAdmitRate spans: 0 before any admission in the last 10, at most 10. */
  measuredSeconds: number;
  admittedTotal: number;
  abandonedTotal: number;
  /** A room selling products: the units left as of the leader's last tick; null for a room that sells none. */
  unitsLeft: number | null;
  /** A room selling products with nothing left to sell (as of the leader's last tick): joins are refused. */
  soldOut: boolean;
  /** A room whose admitPerSecond is "auto": the rate the leader last set for it; null before its first tick. */
  autoAdmitPerSecond: number | null;
}

const MEASURED_SECONDS = 10;

export async function readRoomStats(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  roomId: string,
  nowMs = Date.now(),
): Promise<RoomStats> {
  const room = keys.room(roomId);
  const second = Math.floor(nowMs / 1000);
  const lastMinute = Array.from({ length: 60 }, (_, i) => String(second - 1 - i));
  const results = await redis
    .pipeline()
    .hmget(
      room.state,
      "queueing",
      "admittedTotal",
      "abandonedTotal",
      "unitsLeft",
      "soldOut",
      "autoAdmitPerSecond",
    )
    .zcard(room.queue)
    .zcard(room.early)
    .hmget(room.admits, ...lastMinute)
    .exec();
  const value = <T>(i: number) => results?.[i]?.[1] as T;
  const [queueing, admittedTotal, abandonedTotal, unitsLeft, soldOut, autoRate] = value<(string | null)[]>(0);
  const perSecond = value<(string | null)[]>(3).map((count) => Number(count ?? 0));
  const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
  const recent = perSecond.slice(0, MEASURED_SECONDS); // recent[0]: the last whole second
  let measuredSeconds = recent.length;
  while (measuredSeconds > 0 && recent[measuredSeconds - 1] === 0) measuredSeconds--;
  return {
    queueing: queueing === "1",
    waiting: value<number>(1) + value<number>(2),
    admittedLastMinute: sum(perSecond),
    measuredAdmitRate: measuredSeconds === 0 ? 0 : sum(recent) / measuredSeconds,
    measuredSeconds,
    admittedTotal: Number(admittedTotal ?? 0),
    abandonedTotal: Number(abandonedTotal ?? 0),
    unitsLeft: unitsLeft === null || unitsLeft === undefined ? null : Number(unitsLeft),
    soldOut: soldOut === "1",
    autoAdmitPerSecond: autoRate === null || autoRate === undefined ? null : Number(autoRate),
  };
}

/**
 * Seconds of admitting the measured rate must span before etaSeconds trusts it. Until then (a room that just
 * opened, or resumed after a pause) the room's own rate is what is known: dividing by a rate measured over a
 * second or two, or by a few admissions spread over 10 s, told the first shoppers of a fresh room 20 times too
 * long a wait (issue 31: "about 7 minutes", then 12 s later "about 7 seconds").
 */
export const MIN_MEASURED_SECONDS = 3;

/**
 * Seconds until a place is admitted: its position over the measured rate, or the configured one until that means
 * something (an "auto" rate: the one the leader last set, else where it starts).
 */
export function etaSeconds(
  position: number,
  stats: Pick<RoomStats, "measuredAdmitRate" | "measuredSeconds"> &
    Partial<Pick<RoomStats, "autoAdmitPerSecond">>,
  admitPerSecond: number | "auto",
) {
  const measured = stats.measuredSeconds >= MIN_MEASURED_SECONDS && stats.measuredAdmitRate > 0;
  const configured =
    admitPerSecond === "auto" ? (stats.autoAdmitPerSecond ?? AUTO_ADMIT_START_PER_SECOND) : admitPerSecond;
  const rate = measured ? stats.measuredAdmitRate : configured;
  return Math.ceil(position / Math.max(rate, 0.001));
}
