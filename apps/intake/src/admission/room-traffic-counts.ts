// Guarded requests per room, counted in this process and flushed to each room every 100 ms
// (packages/admission/src/room-traffic.ts), for the `auto` mode's measure of traffic. Counting in memory keeps
// the request's one script in the user's slot; the flush is one call per room with traffic, off the request path.
import { type AdmissionKeys, countRoomTraffic } from "@floodgate/admission";
import type { ScriptedRedis } from "@floodgate/redis-connections";

export const TRAFFIC_FLUSH_MS = 100;

export class RoomTrafficCounts {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  #counts = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(redis: ScriptedRedis, keys: AdmissionKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  count(roomId: string): void {
    this.#counts.set(roomId, (this.#counts.get(roomId) ?? 0) + 1);
  }

  start(onError: (error: Error) => void): void {
    this.#timer = setInterval(() => {
      if (this.#flushing) return;
      this.#flushing = this.flush()
        .catch(onError)
        .finally(() => {
          this.#flushing = undefined;
        });
    }, TRAFFIC_FLUSH_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#flushing;
  }

  /** Sends what was counted; a count that fails to land is dropped (traffic is a measure, not a ledger). */
  async flush(): Promise<void> {
    if (this.#counts.size === 0) return;
    const counts = this.#counts;
    this.#counts = new Map();
    const sent = await Promise.allSettled(
      [...counts].map(([roomId, requests]) => countRoomTraffic(this.#redis, this.#keys, roomId, requests)),
    );
    const failed = sent.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason as Error;
  }
}
