// A waiting room's definition lives in Redis beside its queue (a room is as durable as the people waiting in
// it). Changing it is two steps, each in one slot (so it works on a Redis Cluster): the room list, then one
// MULTI of the definition, the state its mode implies, and a message that makes every intake reload at once;
// then, for `on` and `off`, the queueing mirror in every partition (room-gate.ts), so the guarded routes obey
// the new mode before the admin's answer.
import type { GuardedRouteClass, RoomAdmission, RoomJoins, RoomMethod, RoomMode } from "@floodgate/domain";
import { isGuardedRouteClass } from "@floodgate/domain";
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";
import { writeRoomGate } from "./room-gate.ts";
import { newShuffleSeed } from "./shuffle-seed.ts";

export interface RoomDefinition {
  roomId: string;
  /** See ROOM_MODES. */
  mode: RoomMode;
  /** "auto": the leader sets it from the workers' apply rate and lag (auto-admit-rate.ts). */
  admitPerSecond: number | "auto";
  /** How long an admission (and its token) lasts. */
  sessionSeconds: number;
  /** A waiting ticket with no heartbeat (open WebSocket or poll) this long loses its place. */
  abandonSeconds: number;
  /**
   * Epoch ms; joins before it form the pre-queue, ordered once at this time by a seed committed to when the
   * start was set (shuffle-proof.ts).
   */
  startsAt: number | null;
  /** Route classes guarded whole (a room without products or coupons). */
  guards: GuardedRouteClass[];
  /** A sale's room: it guards only the orders naming one of these products (and no route class whole). */
  products: string[];
  /** A sale's room: it guards only the issues of these coupons. */
  coupons: string[];
  /** A room selling products admits at most the units left plus this many sessions holding no reservation. */
  admitBeyondStock: number;
  /** session: a token serves until its session ends; one-shot: it is consumed by the request accepted with it. */
  admission: RoomAdmission;
  /** Epoch ms; from it on joins are refused (room_closed) and nobody is admitted. null: the room never closes. */
  endsAt: number | null;
  /** See ROOM_METHODS. */
  method: RoomMethod;
  /** Told to every refused join while the method is reject. */
  message: string | null;
  /** See ROOM_JOINS. */
  joins: RoomJoins;
  /** Admission (the leader's and a join's at once) waits while this many sessions are live; null: no cap. */
  maxActiveSessions: number | null;
  /** Lanes a join pass may name, each with its share of the admissions (includes/room-lanes.lua); [] none. */
  lanes: RoomLane[];
  /** A session with no guarded request using its token this long ends (room-idle-sessions.ts); null: never. */
  sessionIdleSeconds: number | null;
  updatedAt: number;
}

/** A lane: its name (what a join pass names) and its share of the room's admissions, in (0, 1]. */
export interface RoomLane {
  name: string;
  share: number;
}

/** Stored as "<name>=<share>,..." (names hold neither "," nor "="): what room-lanes.lua reads. */
const lanesField = (lanes: RoomLane[]): string =>
  lanes.map(({ name, share }) => `${name}=${share}`).join(",");
const readLanes = (value: string | undefined): RoomLane[] =>
  listOf(value).map((lane) => {
    const [name, share] = lane.split("=");
    return { name: name!, share: Number(share) };
  });

export const DEFAULT_ABANDON_SECONDS = 60;

export function parseRoomDefinition(roomId: string, hash: Record<string, string>): RoomDefinition | null {
  if (!hash.mode) return null;
  return {
    roomId,
    mode: hash.mode as RoomMode,
    admitPerSecond: hash.admitPerSecond === "auto" ? "auto" : Number(hash.admitPerSecond),
    sessionSeconds: Number(hash.sessionSeconds),
    abandonSeconds: Number(hash.abandonSeconds),
    startsAt: hash.startsAt ? Number(hash.startsAt) : null,
    guards: (hash.guards ?? "").split(",").filter(isGuardedRouteClass),
    products: listOf(hash.products),
    coupons: listOf(hash.coupons),
    admitBeyondStock: Number(hash.admitBeyondStock ?? 0),
    // A room defined before one-shot admission existed reuses its tokens, as it did.
    admission: hash.admission === "one-shot" ? "one-shot" : "session",
    // A room defined before the controls: open for good, first come first served, anyone joins.
    endsAt: hash.endsAt ? Number(hash.endsAt) : null,
    method: hash.method === "random" || hash.method === "reject" ? hash.method : "fifo",
    message: hash.message ? hash.message : null,
    joins: hash.joins === "server" ? "server" : "anyone",
    maxActiveSessions: hash.maxActiveSessions ? Number(hash.maxActiveSessions) : null,
    lanes: readLanes(hash.lanes),
    sessionIdleSeconds: hash.sessionIdleSeconds ? Number(hash.sessionIdleSeconds) : null,
    updatedAt: Number(hash.updatedAt),
  };
}

const listOf = (value: string | undefined): string[] => (value ? value.split(",") : []);

/** endsAt has come: the room takes no join and admits nobody (the tick and the join script decide the same). */
export const isRoomClosed = (room: Pick<RoomDefinition, "endsAt">, nowMs = Date.now()): boolean =>
  room.endsAt !== null && nowMs >= room.endsAt;

/** A sale's room guards what a request touches (its products, its coupons), not a route class. */
export const isSaleRoom = (room: Pick<RoomDefinition, "products" | "coupons">): boolean =>
  room.products.length > 0 || room.coupons.length > 0;

export async function readRoomDefinition(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  roomId: string,
): Promise<RoomDefinition | null> {
  return parseRoomDefinition(roomId, await redis.hgetall(keys.room(roomId).config));
}

export async function writeRoomDefinition(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  room: RoomDefinition,
  previous: RoomDefinition | null,
): Promise<void> {
  const roomKeys = keys.room(room.roomId);
  // Listed first (the list has a slot of its own). Every reader of the list (the leader's ticks, the intakes'
  // room directory, the admin's guard-conflict check) skips a listed room without a config, so a crash between
  // the steps leaves a name with no effect, completed by the admin's retry. The other order would leave, after
  // a crash, a room users can join that no leader ticks and no intake knows to guard anything.
  await redis.sadd(keys.rooms(), room.roomId);
  // The room's keys share its slot; PUBLISH names no key, and a cluster broadcasts it from any node.
  const multi = redis.multi();
  multi.hset(roomKeys.config, {
    mode: room.mode,
    admitPerSecond: room.admitPerSecond,
    sessionSeconds: room.sessionSeconds,
    abandonSeconds: room.abandonSeconds,
    startsAt: room.startsAt ?? "",
    guards: room.guards.join(","),
    products: room.products.join(","),
    coupons: room.coupons.join(","),
    admitBeyondStock: room.admitBeyondStock,
    admission: room.admission,
    endsAt: room.endsAt ?? "",
    method: room.method,
    message: room.message ?? "",
    joins: room.joins,
    maxActiveSessions: room.maxActiveSessions ?? "",
    lanes: lanesField(room.lanes),
    sessionIdleSeconds: room.sessionIdleSeconds ?? "",
    updatedAt: room.updatedAt,
  });
  // `on` and `off` decide at once; `auto` keeps what the leader decided (not queueing for a new room).
  if (room.mode === "on") multi.hset(roomKeys.state, "queueing", "1");
  else if (room.mode === "off") multi.hset(roomKeys.state, "queueing", "0");
  else multi.hsetnx(roomKeys.state, "queueing", "0");
  // A new start time means a new pre-queue, shuffled when it comes.
  if (previous === null || previous.startsAt !== room.startsAt) multi.hset(roomKeys.state, "shuffled", "0");
  // A start to come gets a secret seed and publishes its commitment now, before anyone joins. One not yet
  // consumed is kept (HSETNX, the three together: the close takes all three at once), so moving the start
  // never changes a published commitment; the close that takes it makes room for the next one.
  if (room.startsAt !== null && room.startsAt > room.updatedAt) {
    const { seed, commitment, committedAt } = newShuffleSeed(room.updatedAt);
    multi.hsetnx(roomKeys.state, "nextSeed", seed);
    multi.hsetnx(roomKeys.state, "nextCommitment", commitment);
    multi.hsetnx(roomKeys.state, "nextCommittedAt", committedAt);
  }
  multi.publish(keys.configChannel(), JSON.stringify({ room: room.roomId }));
  await multi.exec();
  // `auto` is the leader's to mirror (after its next tick). A crash before this line leaves the mirror to the
  // leader's repair within a second.
  if (room.mode !== "auto") await writeRoomGate(redis, keys, room.roomId, room.mode === "on");
}
