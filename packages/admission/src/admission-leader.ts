// One intake process at a time admits: it holds a Redis lease (renewed every tick, 2 s long, so a dead leader
// is replaced within about 2 s) and runs each room's tick script, which checks the lease itself: a leader that
// paused past its lease changes nothing, so two leaders never both admit. Every few ticks it also measures the
// workers' backlog and publishes the backpressure signal the intakes and the `auto` rooms act on.
import type { QueueKeys, ScriptedRedis } from "@floodgate/queue";
import type { AdmissionKeys } from "./admission-keys.ts";
import { BacklogGauge, type BacklogReading } from "./backlog-gauge.ts";
import { type RoomTick, tickRoom } from "./room-tick.ts";
import { ThrottledWarning } from "./throttled-warning.ts";

export const TICK_MS = 100;
export const LEASE_MS = 2000;
const BACKLOG_EVERY_MS = 500;
const ROOM_LIST_EVERY_MS = 1000;
/** Below this many queued entries there is no backpressure, however slow the workers look. */
const BACKLOG_FLOOR = 1000;

export interface AdmissionLeaderOptions {
  redis: ScriptedRedis;
  keys: AdmissionKeys;
  queueKeys: QueueKeys;
  instanceId: string;
  /** 0: no backpressure. */
  backpressureSeconds: number;
  cooldownMs: number;
  log: { warn(object: object, message: string): void; info(object: object, message: string): void };
  onTick?: (tick: RoomTick) => void;
  onBacklog?: (reading: BacklogReading, backpressure: boolean) => void;
}

export class AdmissionLeader {
  readonly #options: AdmissionLeaderOptions;
  readonly #gauge = new BacklogGauge();
  readonly #warnings = new ThrottledWarning();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #leading = false;
  #backpressure = false;
  #lastBacklogAt = 0;
  #rooms: string[] = [];
  #lastRoomListAt = 0;

  constructor(options: AdmissionLeaderOptions) {
    this.#options = options;
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    const loop = async () => {
      if (this.#stopped) return;
      this.#running = this.#tick().catch((error: Error) =>
        this.#warnings.warn("tick", (heldBack) =>
          this.#options.log.warn(
            { err: error.message, similarSinceLast: heldBack },
            "admission tick failed; retrying every 100 ms (rooms admit nobody meanwhile)",
          ),
        ),
      );
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(loop, TICK_MS);
    };
    this.#timer = setTimeout(loop, 0);
  }

  /** Finishes the tick in flight and gives the lease up, so another process takes over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#leading) {
      await this.#options.redis
        .holdLease(this.#options.keys.leaderLease(), this.#options.instanceId, 1)
        .catch(() => 0);
      this.#leading = false;
    }
  }

  async #tick(): Promise<void> {
    const { redis, keys, instanceId } = this.#options;
    const leading = (await redis.holdLease(keys.leaderLease(), instanceId, LEASE_MS)) === 1;
    if (leading !== this.#leading) {
      this.#leading = leading;
      this.#options.log.info(
        { instanceId },
        leading ? "admission leader: this process admits" : "admission leader: lost the lease",
      );
    }
    if (!leading) return;
    const now = Date.now();
    if (now - this.#lastBacklogAt >= BACKLOG_EVERY_MS) {
      this.#lastBacklogAt = now;
      await this.#measureBacklog();
    }
    if (now - this.#lastRoomListAt >= ROOM_LIST_EVERY_MS) {
      this.#lastRoomListAt = now;
      this.#rooms = await redis.smembers(keys.rooms());
    }
    for (const roomId of this.#rooms) await this.#tickRoom(roomId);
  }

  async #measureBacklog(): Promise<void> {
    const { redis, keys, queueKeys, backpressureSeconds } = this.#options;
    const reading = await this.#gauge.read(redis, queueKeys);
    // An unknown drain time (the workers have not been busy long enough to tell) starts nothing.
    this.#backpressure =
      backpressureSeconds > 0 &&
      reading.backlog >= BACKLOG_FLOOR &&
      reading.drainSeconds !== null &&
      reading.drainSeconds > backpressureSeconds;
    await redis
      .multi()
      .hset(keys.backlogSignal(), {
        backpressure: this.#backpressure ? "1" : "0",
        backlog: reading.backlog,
        workerRate: reading.workerRate === null ? "unknown" : reading.workerRate.toFixed(1),
        drainSeconds:
          reading.drainSeconds === null
            ? "unknown"
            : Number.isFinite(reading.drainSeconds)
              ? reading.drainSeconds.toFixed(1)
              : "inf",
        at: Date.now(),
      })
      // A signal nobody renews (the leader died) goes away rather than refusing traffic forever.
      .pexpire(keys.backlogSignal(), LEASE_MS + BACKLOG_EVERY_MS * 2)
      .exec();
    this.#options.onBacklog?.(reading, this.#backpressure);
  }

  async #tickRoom(roomId: string): Promise<void> {
    const { redis, keys, instanceId, cooldownMs } = this.#options;
    const tick = await tickRoom(redis, keys, roomId, {
      instanceId,
      backpressure: this.#backpressure,
      cooldownMs,
    });
    if (tick) this.#options.onTick?.(tick);
  }
}
