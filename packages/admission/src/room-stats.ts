// What a room looks like from outside, in one pipeline: how many wait, whether it queues, how many it admitted
// in the last minute and at what rate over the last 10 seconds (the rate etaSeconds divides by). The pipeline
// reads the room's keys only: one slot, as a Redis Cluster requires of a pipeline.
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";

export interface RoomStats {
  queueing: boolean;
  waiting: number;
  admittedLastMinute: number;
  /** Admissions per second over the last 10 whole seconds. */
  measuredAdmitRate: number;
  admittedTotal: number;
  abandonedTotal: number;
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
    .hmget(room.state, "queueing", "admittedTotal", "abandonedTotal")
    .zcard(room.queue)
    .zcard(room.early)
    .hmget(room.admits, ...lastMinute)
    .exec();
  const value = <T>(i: number) => results?.[i]?.[1] as T;
  const [queueing, admittedTotal, abandonedTotal] = value<(string | null)[]>(0);
  const perSecond = value<(string | null)[]>(3).map((count) => Number(count ?? 0));
  const sum = (counts: number[]) => counts.reduce((total, count) => total + count, 0);
  return {
    queueing: queueing === "1",
    waiting: value<number>(1) + value<number>(2),
    admittedLastMinute: sum(perSecond),
    measuredAdmitRate: sum(perSecond.slice(0, MEASURED_SECONDS)) / MEASURED_SECONDS,
    admittedTotal: Number(admittedTotal ?? 0),
    abandonedTotal: Number(abandonedTotal ?? 0),
  };
}

/** Seconds until a place is admitted: its position over the measured rate (the configured one before any). */
export function etaSeconds(
  position: number,
  stats: Pick<RoomStats, "measuredAdmitRate">,
  admitPerSecond: number,
) {
  const rate = stats.measuredAdmitRate > 0 ? stats.measuredAdmitRate : admitPerSecond;
  return Math.ceil(position / Math.max(rate, 0.001));
}
