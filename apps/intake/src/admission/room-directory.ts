// What this process knows of the waiting rooms and of the workers' backlog, refreshed from Redis every 250 ms
// and at once when the config channel announces a change. The request path reads it (which room guards a
// route class, whether it queues, whether there is backpressure) and never asks Redis itself.
import {
  type AdmissionKeys,
  parseRoomDefinition,
  type RoomDefinition,
  type RoomStats,
  readRoomStats,
} from "@floodgate/admission";
import type { GuardedRouteClass } from "@floodgate/domain";
import type { Cluster, Redis } from "ioredis";

export interface RoomEntry {
  definition: RoomDefinition;
  stats: RoomStats;
}

export interface BacklogSignal {
  backpressure: boolean;
  backlog: number;
  /** Infinity when nothing works the backlog off. */
  drainSeconds: number;
}

const NO_BACKLOG: BacklogSignal = { backpressure: false, backlog: 0, drainSeconds: 0 };

export class RoomDirectory {
  #rooms = new Map<string, RoomEntry>();
  #guards = new Map<GuardedRouteClass, RoomEntry>();
  #backlog: BacklogSignal = NO_BACKLOG;

  /** The room that guards a route class now (a room with mode off guards nothing). */
  guardOf(routeClass: GuardedRouteClass): RoomEntry | undefined {
    return this.#guards.get(routeClass);
  }

  room(roomId: string): RoomEntry | undefined {
    return this.#rooms.get(roomId);
  }

  rooms(): RoomEntry[] {
    return [...this.#rooms.values()];
  }

  get backlog(): BacklogSignal {
    return this.#backlog;
  }

  async refresh(redis: Redis | Cluster, keys: AdmissionKeys): Promise<void> {
    const [roomIds, signal] = await Promise.all([
      redis.smembers(keys.rooms()),
      redis.hgetall(keys.backlogSignal()),
    ]);
    const entries = await Promise.all(
      roomIds.map(async (roomId) => {
        const [config, stats] = await Promise.all([
          redis.hgetall(keys.room(roomId).config),
          readRoomStats(redis, keys, roomId),
        ]);
        const definition = parseRoomDefinition(roomId, config);
        return definition ? { definition, stats } : null;
      }),
    );
    const rooms = new Map<string, RoomEntry>();
    const guards = new Map<GuardedRouteClass, RoomEntry>();
    for (const entry of entries) {
      if (!entry) continue;
      rooms.set(entry.definition.roomId, entry);
      if (entry.definition.mode === "off") continue;
      for (const routeClass of entry.definition.guards) guards.set(routeClass, entry);
    }
    this.#rooms = rooms;
    this.#guards = guards;
    this.#backlog = signal.backpressure
      ? {
          backpressure: signal.backpressure === "1",
          backlog: Number(signal.backlog),
          drainSeconds:
            signal.drainSeconds === "inf" ? Number.POSITIVE_INFINITY : Number(signal.drainSeconds),
        }
      : NO_BACKLOG;
  }
}
