// What a room looks like from outside, in one pipeline: how many wait, whether it queues, how many it admitted
// in the last minute and at what rate lately (the rate etaSeconds divides by, once it means something). The
// pipeline reads the room's keys only: one slot, as a Redis Cluster requires of a pipeline.
import { LANE_BAND } from "@floodgate/redis-scripts";
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";
import { AUTO_ADMIT_START_PER_SECOND } from "./auto-admit-rate.ts";
import type { RoomLane } from "./room-definition.ts";

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
  /**
   * A room with lanes: how many wait in each, by band (0 the default queue, i the i-th lane), read when the
   * caller names the lanes; [] otherwise. A lane's share of the admissions depends on which lanes have someone
   * waiting (includes/room-lanes.lua), so its ETA does too (laneEtaSeconds).
   */
  laneWaiting: number[];
}

const MEASURED_SECONDS = 10;

/** `lanes`: how many lanes the room has (its definition's), whose waiting counts to read; 0 reads none. */
export async function readRoomStats(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  roomId: string,
  nowMs = Date.now(),
  lanes = 0,
): Promise<RoomStats> {
  const room = keys.room(roomId);
  const second = Math.floor(nowMs / 1000);
  const lastMinute = Array.from({ length: 60 }, (_, i) => String(second - 1 - i));
  const pipeline = redis.pipeline();
  // The default queue is everything below band 1 (a bypass waiting for room scores below 0). No lanes: no counts.
  const bands = lanes === 0 ? 0 : lanes + 1;
  for (let band = 0; band < bands; band++) {
    pipeline.zcount(room.queue, band === 0 ? "-inf" : band * LANE_BAND, `(${(band + 1) * LANE_BAND}`);
  }
  const results = await pipeline
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
  const laneWaiting = (results ?? []).slice(0, bands).map(([, count]) => Number(count));
  const value = <T>(i: number) => results?.[bands + i]?.[1] as T;
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
    laneWaiting,
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
export function etaSeconds(position: number, stats: RateStats, admitPerSecond: number | "auto") {
  return Math.ceil(position / Math.max(admitRate(stats, admitPerSecond), 0.001));
}

type RateStats = Pick<RoomStats, "measuredAdmitRate" | "measuredSeconds"> &
  Partial<Pick<RoomStats, "autoAdmitPerSecond">>;

/** The room's admissions per second an ETA divides by: the measured rate once it means something, else its own. */
function admitRate(stats: RateStats, admitPerSecond: number | "auto"): number {
  const measured = stats.measuredSeconds >= MIN_MEASURED_SECONDS && stats.measuredAdmitRate > 0;
  const configured =
    admitPerSecond === "auto" ? (stats.autoAdmitPerSecond ?? AUTO_ADMIT_START_PER_SECOND) : admitPerSecond;
  return measured ? stats.measuredAdmitRate : configured;
}

/**
 * Seconds until a place in a lane (`band`: 0 the default queue) is admitted. The tick shares each admission among
 * the lanes with someone waiting, by their shares (includes/room-lanes.lua), so a lane moves at the room's rate
 * times its share over the shares of the lanes waiting now (stats.laneWaiting, as the caller's last read): the
 * default queue moves at the whole rate while every lane is empty. A lane of share 0 (the default queue when the lanes'
 * shares sum to 1), or one the room no longer names, gets admissions only once the lanes before it are empty:
 * its wait is theirs plus its own place. A room without lanes: etaSeconds.
 */
export function laneEtaSeconds(
  position: number,
  band: number,
  stats: RateStats & Pick<RoomStats, "laneWaiting">,
  definition: { admitPerSecond: number | "auto"; lanes: RoomLane[] },
): number {
  const { lanes } = definition;
  if (lanes.length === 0) return etaSeconds(position, stats, definition.admitPerSecond);
  const rate = Math.max(admitRate(stats, definition.admitPerSecond), 0.001);
  const shares = [
    Math.max(0, 1 - lanes.reduce((sum, lane) => sum + lane.share, 0)),
    ...lanes.map((l) => l.share),
  ];
  if (shares[0]! < 1e-9) shares[0] = 0; // shares summing to 1 in floating point, as the tick rounds them
  // The ticket's own lane has someone waiting: the ticket.
  const waiting = (b: number) =>
    b === band ? Math.max(1, stats.laneWaiting[b] ?? 0) : (stats.laneWaiting[b] ?? 0);
  const named = shares.map((_, b) => b);
  if (band >= shares.length) {
    const ahead = named.reduce((sum, b) => sum + waiting(b), 0);
    return Math.ceil((ahead + position) / rate);
  }
  const active = named.filter((b) => waiting(b) > 0);
  const sum = active.reduce((total, b) => total + shares[b]!, 0);
  if (sum === 0) return Math.ceil(position / (rate / active.length)); // only shares of 0 wait: equal parts
  const own = shares[band]!;
  if (own > 0) return Math.ceil(position / ((rate * own) / sum));
  const ahead = active.filter((b) => shares[b]! > 0).reduce((total, b) => total + waiting(b), 0);
  return Math.ceil((ahead + position) / rate);
}
