// What the admission tests share: a real Redis under the file's prefix, rooms defined directly, a lease held
// as the "test leader", ticks run by hand, and the room event channel recorded.

import type { Config } from "@floodgate/config";
import { type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { createRedis, QueueKeys, type ScriptedRedis, waitForRedis } from "@floodgate/queue";
import { bucketForUser } from "@floodgate/shard-router";
import {
  AdmissionKeys,
  LEASE_MS,
  type RoomDefinition,
  readRoomDefinition,
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
  readonly subscriber: ScriptedRedis;
  readonly queueKeys: QueueKeys;
  readonly keys: AdmissionKeys;
  readonly events: RoomEvent[] = [];

  private constructor(config: Config) {
    this.redis = createRedis(config.redisUrl);
    this.subscriber = createRedis(config.redisUrl);
    this.queueKeys = new QueueKeys(config.redisPrefix, config.streamPartitions);
    this.keys = new AdmissionKeys(this.queueKeys);
  }

  static async start(config: Config): Promise<RoomTestKit> {
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
        updatedAt: Date.now(),
        ...fields,
      },
      previous,
    );
  }

  /** Takes the leader's lease for this test's ticks. */
  async lead(id = LEADER): Promise<void> {
    await this.redis.holdLease(this.keys.leaderLease(), id, LEASE_MS * 30);
  }

  /** Runs a tick and waits until the subscriber has received whatever it published. */
  async tick(
    roomId: string,
    options: {
      instanceId?: string;
      backpressure?: boolean;
      cooldownMs?: number;
      endedRetentionMs?: number;
    } = {},
  ) {
    const tick = await tickRoom(this.redis, this.keys, roomId, {
      instanceId: options.instanceId ?? LEADER,
      backpressure: options.backpressure ?? false,
      cooldownMs: options.cooldownMs ?? 60_000,
      endedRetentionMs: options.endedRetentionMs,
    });
    await this.flushEvents();
    return tick;
  }

  /** Messages on one channel arrive in order: once a marker published now is back, everything before it is. */
  async flushEvents(): Promise<void> {
    const marker = `__marker-${this.#markers++}`;
    await this.redis.publish(
      this.keys.roomEventsChannel(),
      JSON.stringify({ room: marker, admitted: [], ended: [] }),
    );
    for (let i = 0; i < 200 && !this.events.some((event) => event.room === marker); i++) await sleep(5);
  }

  #markers = 0;

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
