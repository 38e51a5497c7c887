// One intake process at a time admits: it holds a Redis lease (renewed every tick, 2 s long, so a dead leader
// is replaced within about 2 s) and runs each room's tick script. Every new holder of the lease gets a higher
// epoch; each tick carries it and the room keeps the highest it has seen, so a leader that paused past its lease
// cannot admit in any room its successor has ticked (the tick touches only the room's slot: it runs on a Redis
// Cluster). What a deposed leader can still do, and why it is harmless, is said at #tickRooms. After a tick that
// changed whether a room queues, and for every room once a second (a repair), it copies that into the room's
// queueing mirror in every partition (room-gate.ts), where the guarded routes read it. Every few ticks it also
// measures the workers' backlog and publishes the backpressure signal the intakes and the `auto` rooms act on.
// A room selling products ticks with their units left (room-stock.ts), which bounds what it admits. A room
// whose admitPerSecond is "auto" ticks with its share of the rate the backlog readings set (auto-admit-rate.ts).
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { AdmissionKeys } from "./admission-keys.ts";
import { autoRoomShare, nextAutoAdmitRate, startingAutoAdmitRate } from "./auto-admit-rate.ts";
import { BacklogGauge, type BacklogReading } from "./backlog-gauge.ts";
import { holdLeaderLease } from "./leader-lease.ts";
import { type RoomDefinition, readRoomDefinition } from "./room-definition.ts";
import { writeRoomGate } from "./room-gate.ts";
import { endRoomIdleSessions } from "./room-idle-sessions.ts";
import { readRoomStock } from "./room-stock.ts";
import { type RoomTick, type TickOutcome, tickRoom } from "./room-tick.ts";
import { ThrottledWarning } from "./throttled-warning.ts";

export const TICK_MS = 100;
export const LEASE_MS = 2000;
const BACKLOG_EVERY_MS = 500;
const ROOM_LIST_EVERY_MS = 1000;
/** Every room's queueing mirror is rewritten this often, whatever this process last wrote (a repair). */
const GATE_REPAIR_EVERY_MS = 1000;
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
  /** Our epoch while we hold the lease, else 0. */
  #epoch = 0;
  #backpressure = false;
  #lastBacklogAt = 0;
  /** The pipeline's admit rate for `auto`-rate rooms; null until this process first measures (or reads it). */
  #autoRate: number | null = null;
  #autoRateAt = 0;
  #rooms: string[] = [];
  /** The rooms' definitions as of the last room list (a room's products and admitBeyondStock). */
  #definitions = new Map<string, RoomDefinition>();
  #lastRoomListAt = 0;
  /** What this process last wrote into each room's queueing mirror. */
  readonly #mirrored = new Map<string, boolean>();
  #lastGateRepairAt = 0;

  constructor(options: AdmissionLeaderOptions) {
    this.#options = options;
  }

  get leading(): boolean {
    return this.#epoch > 0;
  }

  /** The epoch this process leads with (0 while it does not lead). */
  get epoch(): number {
    return this.#epoch;
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
    if (this.leading) {
      const { redis, keys, instanceId } = this.#options;
      await holdLeaderLease(redis, keys, instanceId, 1).catch(() => 0);
      this.#epoch = 0;
    }
  }

  /** Renews (or takes) the lease; `aboveEpoch`: an epoch a room refused us with (see holdLeaderLease). */
  async #holdLease(aboveEpoch = 0): Promise<void> {
    const { redis, keys, instanceId } = this.#options;
    const epoch = await holdLeaderLease(redis, keys, instanceId, LEASE_MS, aboveEpoch);
    if (epoch !== this.#epoch) {
      this.#options.log.info(
        { instanceId, epoch },
        epoch > 0 ? "admission leader: this process admits" : "admission leader: lost the lease",
      );
    }
    this.#epoch = epoch;
  }

  async #tick(): Promise<void> {
    const { redis, keys } = this.#options;
    await this.#holdLease();
    if (!this.leading) return;
    const now = Date.now();
    if (now - this.#lastBacklogAt >= BACKLOG_EVERY_MS) {
      this.#lastBacklogAt = now;
      // The rooms' ticks do not depend on it: a backlog that cannot be read (a stream's node away) leaves the
      // last measured backpressure in force until a measurement succeeds, the signal to expire, and the rooms
      // admitting.
      await this.#measureBacklog().catch((error: Error) =>
        this.#warnings.warn("backlog", (heldBack) =>
          this.#options.log.warn(
            { err: error.message, similarSinceLast: heldBack },
            "admission leader: workers' backlog not measured; rooms tick with the last backpressure known",
          ),
        ),
      );
    }
    if (now - this.#lastRoomListAt >= ROOM_LIST_EVERY_MS) {
      this.#lastRoomListAt = now;
      this.#rooms = await redis.smembers(keys.rooms());
      const definitions = await Promise.all(this.#rooms.map((id) => readRoomDefinition(redis, keys, id)));
      this.#definitions = new Map(definitions.flatMap((room) => (room ? [[room.roomId, room]] : [])));
    }
    const repair = now - this.#lastGateRepairAt >= GATE_REPAIR_EVERY_MS;
    if (repair) this.#lastGateRepairAt = now;
    await this.#tickRooms(repair);
  }

  /**
   * One tick per room, each carrying our epoch. A leader deposed while it runs this round (its lease expired
   * during a pause and another process took it) learns so from the first room its successor has ticked: that
   * room refuses the tick, the lease says we lost it, and the round stops. Before that it can still tick the
   * rooms its successor has not reached since taking over: at most one tick each, the rest of one round.
   * Harmless, because everything a tick decides from is in the room (allowance, lastTickAt, the queue, the
   * node's clock) and the tick is one script: interleaved with the successor's ticks it admits no more and in
   * no other order than one leader's, and admits no ticket twice. Its measured backpressure may be up to a
   * round old, so an `auto` room may start or stop queueing one tick early or late; the next tick decides
   * again. The backlog signal it may have written earlier in the round is a measurement of the same streams,
   * rewritten by the successor within BACKLOG_EVERY_MS.
   */
  async #tickRooms(repair: boolean): Promise<void> {
    const mirrors: Promise<void>[] = [];
    try {
      await this.#tickEachRoom(repair, mirrors);
    } finally {
      await Promise.all(mirrors);
    }
  }

  async #tickEachRoom(repair: boolean, mirrors: Promise<void>[]): Promise<void> {
    for (const roomId of this.#rooms) {
      let outcome = await this.#tickRoom(roomId);
      if (outcome.result === "deposed") {
        // Either a successor ticked the room (the lease is theirs: stop), or the epoch counter fell behind the
        // room's (a failover lost its last write): holding the lease still, our epoch goes past the room's.
        await this.#holdLease(outcome.roomEpoch);
        if (!this.leading) return;
        outcome = await this.#tickRoom(roomId);
        if (outcome.result === "deposed") return; // a successor, just now: the next round's lease check tells
      }
      if (outcome.result === "ticked") {
        this.#options.onTick?.(outcome.tick);
        const { queueing } = outcome.tick;
        // Sent at once, awaited with the round's others: the mirror trails the tick by one round trip.
        if (repair || this.#mirrored.get(roomId) !== queueing) mirrors.push(this.#mirror(roomId, queueing));
      }
    }
  }

  /** Writes the room's queueing mirror; a failure is retried after the next tick (nothing is remembered). */
  async #mirror(roomId: string, queueing: boolean): Promise<void> {
    const { redis, keys } = this.#options;
    this.#mirrored.delete(roomId);
    try {
      await writeRoomGate(redis, keys, roomId, queueing);
      this.#mirrored.set(roomId, queueing);
    } catch (error) {
      this.#warnings.warn("gate", (heldBack) =>
        this.#options.log.warn(
          { err: (error as Error).message, roomId, similarSinceLast: heldBack },
          "admission leader: a room's queueing mirror not written; guarded routes judge by the previous value until it is",
        ),
      );
    }
  }

  async #measureBacklog(): Promise<void> {
    const { redis, keys, queueKeys, backpressureSeconds } = this.#options;
    const reading = await this.#gauge.read(redis, queueKeys);
    const now = Date.now();
    if (this.#autoRate === null) {
      // A new leader goes on from what its predecessor published (the signal expires if nobody renews it).
      this.#autoRate = startingAutoAdmitRate(await redis.hget(keys.backlogSignal(), "autoAdmitPerSecond"));
    } else {
      this.#autoRate = nextAutoAdmitRate(this.#autoRate, reading, now - this.#autoRateAt);
    }
    this.#autoRateAt = now;
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
        autoAdmitPerSecond: this.#autoRate,
        at: Date.now(),
      })
      // A signal nobody renews (the leader died) goes away rather than refusing traffic forever.
      .pexpire(keys.backlogSignal(), LEASE_MS + BACKLOG_EVERY_MS * 2)
      .exec();
    this.#options.onBacklog?.(reading, this.#backpressure);
  }

  async #tickRoom(roomId: string): Promise<TickOutcome> {
    const { redis, keys, queueKeys, cooldownMs } = this.#options;
    // A room selling products: its stock, read in the products' slots just before the room's tick.
    const definition = this.#definitions.get(roomId);
    const stock = await readRoomStock(redis, queueKeys, definition);
    // Idle sessions end before the tick, which then admits the next in line for them.
    await endRoomIdleSessions(redis, keys, roomId, definition?.sessionIdleSeconds ?? null);
    return tickRoom(redis, keys, roomId, {
      epoch: this.#epoch,
      backpressure: this.#backpressure,
      cooldownMs,
      stock,
      autoAdmitPerSecond: definition?.admitPerSecond === "auto" ? this.#autoShare() : null,
    });
  }

  /** One `auto`-rate room's share of the pipeline's rate (rooms turned off admit everyone and take none). */
  #autoShare(): number {
    let rooms = 0;
    for (const room of this.#definitions.values()) {
      if (room.admitPerSecond === "auto" && room.mode !== "off") rooms++;
    }
    return autoRoomShare(this.#autoRate ?? startingAutoAdmitRate(null), rooms);
  }
}
