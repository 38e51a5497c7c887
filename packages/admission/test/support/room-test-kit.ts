// What the admission tests share: a real Redis (or cluster) under the file's prefix, rooms defined directly, a
// lease held as the "test leader" (its epoch carried by every tick), ticks run by hand, and the room event
// channel recorded.

import type { Config } from "@floodgate/config";
import { type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import {
  createRedis,
  createSubscriber,
  type RedisConnection,
  type ScriptedRedis,
  waitForRedis,
} from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import type { Cluster } from "ioredis";
import {
  AdmissionKeys,
  holdLeaderLease,
  LEASE_MS,
  type RoomDefinition,
  type RoomTick,
  readRoomDefinition,
  readShuffleProof,
  readShuffleProofTickets,
  type TickOutcome,
  tickRoom,
  writeRoomDefinition,
} from "../../src/index.ts";

export const LEADER = "test-leader";

export interface RoomEvent {
  room: string;
  admitted: [string, string, number][] | Record<string, never>;
  ended: [string, string][] | Record<string, never>;
  admittedAt?: number;
}

export class RoomTestKit {
  readonly redis: ScriptedRedis;
  readonly subscriber: RedisConnection;
  readonly queueKeys: QueueKeys;
  readonly keys: AdmissionKeys;
  readonly events: RoomEvent[] = [];
  /** The test leader's lease holder and epoch (lead, handOver). */
  leader = LEADER;
  epoch = 0;

  private constructor(config: Pick<Config, "redisUrl" | "redisPrefix" | "streamPartitions">) {
    this.redis = createRedis(config.redisUrl);
    this.subscriber = createSubscriber(config.redisUrl, "room-test-kit-events");
    this.queueKeys = new QueueKeys(config.redisPrefix, config.streamPartitions);
    this.keys = new AdmissionKeys(this.queueKeys);
  }

  static async start(
    config: Pick<Config, "redisUrl" | "redisPrefix" | "streamPartitions">,
  ): Promise<RoomTestKit> {
    const kit = new RoomTestKit(config);
    await Promise.all([waitForRedis(kit.redis), waitForRedis(kit.subscriber)]);
    await kit.subscriber.subscribe(kit.keys.roomEventsChannel());
    kit.subscriber.on("message", (_channel, message) => kit.events.push(JSON.parse(message) as RoomEvent));
    return kit;
  }

  async stop(): Promise<void> {
    this.subscriber.disconnect();
    await this.redis.quit();
  }

  async defineRoom(roomId: string, fields: Partial<RoomDefinition> = {}): Promise<void> {
    const previous = await readRoomDefinition(this.redis, this.keys, roomId);
    await writeRoomDefinition(
      this.redis,
      this.keys,
      {
        roomId,
        mode: "on",
        admitPerSecond: 100,
        sessionSeconds: 300,
        abandonSeconds: 60,
        startsAt: null,
        guards: [],
        products: [],
        coupons: [],
        admitBeyondStock: 0,
        admission: "session",
        endsAt: null,
        method: "fifo",
        message: null,
        joins: "anyone",
        maxActiveSessions: null,
        lanes: [],
        sessionIdleSeconds: null,
        updatedAt: Date.now(),
        ...fields,
      },
      previous,
    );
  }

  /** Takes (or keeps) the leader's lease for this test's ticks; they carry its epoch. */
  async lead(): Promise<number> {
    this.epoch = await holdLeaderLease(this.redis, this.keys, this.leader, LEASE_MS * 30);
    if (this.epoch < 1) throw new Error(`${this.leader} could not take the leader's lease`);
    return this.epoch;
  }

  /** The test leader gives the lease up (a 1 ms lease) and `next` takes it, with a higher epoch. */
  async handOver(next: string): Promise<number> {
    await holdLeaderLease(this.redis, this.keys, this.leader, 1);
    await sleep(5);
    this.leader = next;
    return this.lead();
  }

  /** Runs a tick (by default with the test leader's epoch) and waits until its events are heard. */
  async tickOutcome(roomId: string, options: TickRunOptions = {}): Promise<TickOutcome> {
    const outcome = await tickRoom(this.redis, this.keys, roomId, {
      epoch: options.epoch ?? this.epoch,
      backpressure: options.backpressure ?? false,
      cooldownMs: options.cooldownMs ?? 60_000,
      endedRetentionMs: options.endedRetentionMs,
      autoAdmitPerSecond: options.autoAdmitPerSecond,
      stock: options.stock,
    });
    await this.flushEvents();
    return outcome;
  }

  /** A tick's numbers, or null when the room refused it (a later epoch ticked it) or has no definition. */
  async tick(roomId: string, options: TickRunOptions = {}): Promise<RoomTick | null> {
    const outcome = await this.tickOutcome(roomId, options);
    return outcome.result === "ticked" ? outcome.tick : null;
  }

  /**
   * Messages one node publishes on a channel arrive in order: once a marker published now by that node is back,
   * everything it published before is. On a cluster a script publishes from its slot's master and the event
   * reaches the subscriber's node over the cluster bus, so a marker goes out from every master.
   */
  async flushEvents(): Promise<void> {
    const publishers = this.redis.isCluster ? (this.redis as Cluster).nodes("master") : [this.redis];
    const markers = publishers.map(() => `__marker-${this.#markers++}`);
    await Promise.all(
      publishers.map((node, i) =>
        node.publish(
          this.keys.roomEventsChannel(),
          JSON.stringify({ room: markers[i], admitted: [], ended: [] }),
        ),
      ),
    );
    const arrived = () => markers.every((marker) => this.events.some((event) => event.room === marker));
    for (let i = 0; i < 200 && !arrived(); i++) await sleep(5);
  }

  #markers = 0;

  /** The room's published shuffle proof with its tickets, as GET /v1/rooms/:roomId/shuffle-proof answers it. */
  async shuffleProof(
    roomId: string,
  ): Promise<{ commitment: string; seed: string | null; tickets: string[] | null }> {
    const proof = await readShuffleProof(this.redis, this.keys, roomId);
    if (proof === null) throw new Error(`${roomId} has no shuffle proof`);
    const tickets =
      proof.publishedAt === null
        ? null
        : await readShuffleProofTickets(this.redis, this.keys, roomId, proof.publishedAt);
    return { commitment: proof.commitment, seed: proof.seed, tickets };
  }

  /** Tickets admitted so far, in the order the events announced them. */
  admittedOrder(roomId: string): string[] {
    return this.events
      .filter((event) => event.room === roomId && Array.isArray(event.admitted))
      .flatMap((event) => (event.admitted as [string, string, number][]).map(([ticketId]) => ticketId));
  }

  ended(roomId: string): [string, string][] {
    return this.events
      .filter((event) => event.room === roomId && Array.isArray(event.ended))
      .flatMap((event) => event.ended as [string, string][]);
  }
}

export interface TickRunOptions {
  epoch?: number;
  backpressure?: boolean;
  cooldownMs?: number;
  endedRetentionMs?: number;
  /** A room whose admitPerSecond is "auto": the rate the leader would pass. */
  autoAdmitPerSecond?: number | null;
  /** A room selling products: the units left the leader read before the tick. */
  stock?: { unitsLeft: number; admitBeyondStock: number; soldOut: boolean } | null;
}

export function paymentMessage(userId: string, amount = 100): MoneyOperationMessage {
  return {
    v: 1,
    kind: "payment",
    id: newOperationId("payment", bucketForUser(userId)),
    userId,
    amount,
    currency: "KRW",
    createdAt: Date.now(),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
