// The Redis key layout of admission control. A room's keys share one hash tag, {room-<id>}, so its scripts
// touch one slot. What a guarded request's script reads lives in the user's partition slot (with the rest of
// their request): the user's bucket, the room's queueing mirror (one copy per partition, written by the
// admission leader) and the user's room passes (written by the intakes). A client address's bucket has its own
// slot, taken by a side command of its own (address-bucket.ts).
import type { RouteClass } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";

export interface RoomKeySet {
  config: string;
  state: string;
  queue: string;
  early: string;
  tickets: string;
  users: string;
  seen: string;
  sessions: string;
  admits: string;
  /** Tickets that ended (expired, abandoned, revoked), scored by when: forgotten after a retention. */
  ended: string;
  /** A closed pre-queue round's tickets in the order the leader computed (pre-queue-order.ts). */
  order: string;
  /** The last published shuffle proof (a hash) and its ticket ids, sorted (a list): shuffle-proof.ts. */
  proof: string;
  proofTickets: string;
  /** A room selling products: its admitted sessions that have not reserved yet, scored by their end. */
  unreserved: string;
  /** The shop's room events (a stream, room-events.lua), drained by the workers into the events feed. */
  events: string;
  /** A room with sessionIdleSeconds: ticket -> when its session could next be idle (room-idle-sessions.ts). */
  idle: string;
}

export class AdmissionKeys {
  readonly prefix: string;
  readonly #queueKeys: QueueKeys;

  constructor(queueKeys: QueueKeys) {
    this.prefix = queueKeys.prefix;
    this.#queueKeys = queueKeys;
  }

  userBucket(routeClass: RouteClass, userId: string): string {
    const partition = this.#queueKeys.partitionForUser(userId);
    return `${this.prefix}{p${partition}}:rl:${routeClass}:u:${userId}`;
  }

  /** A client address's bucket: one slot per address, never a key of another script (address-bucket.ts). */
  ipBucket(routeClass: RouteClass, ip: string): string {
    return `${this.prefix}{ip-${ip}}:rl:${routeClass}`;
  }

  /** A user's partition stream: the never-touched stand-in key of a gate without a room. */
  userSlotPlaceholder(userId: string): string {
    return this.#queueKeys.stream(this.#queueKeys.partitionForUser(userId));
  }

  /**
   * The room's queueing mirror in one partition: "1" while the room queues. The room's state decides; the
   * leader copies it into every partition (room-gate.ts), where the guarded scripts read it.
   */
  roomGate(roomId: string, partition: number): string {
    return `${this.prefix}{p${partition}}:gate:${roomId}`;
  }

  /** The mirror a user's guarded requests read (their partition's). */
  roomGateFor(roomId: string, userId: string): string {
    return this.roomGate(roomId, this.#queueKeys.partitionForUser(userId));
  }

  /** Every partition's copy of the room's queueing mirror. */
  roomGates(roomId: string): string[] {
    return Array.from({ length: this.#queueKeys.partitions }, (_, partition) =>
      this.roomGate(roomId, partition),
    );
  }

  /** A user's passes for a room (a hash per ticket admitted: room-passes.ts), in the user's partition slot. */
  roomPasses(roomId: string, userId: string): string {
    const partition = this.#queueKeys.partitionForUser(userId);
    return `${this.prefix}{p${partition}}:pass:${roomId}:${userId}`;
  }

  room(roomId: string): RoomKeySet {
    const base = `${this.prefix}{room-${roomId}}:`;
    return {
      config: `${base}config`,
      state: `${base}state`,
      queue: `${base}queue`,
      early: `${base}early`,
      tickets: `${base}tickets`,
      users: `${base}users`,
      seen: `${base}seen`,
      sessions: `${base}sessions`,
      admits: `${base}admits`,
      ended: `${base}ended`,
      order: `${base}order`,
      proof: `${base}shuffle`,
      proofTickets: `${base}shuffle-tickets`,
      unreserved: `${base}unreserved`,
      events: `${base}events`,
      idle: `${base}idle`,
    };
  }

  /**
   * The ids of every room ever defined (a set). A room is listed before its keys are written
   * (room-definition.ts), so a reader finds listed rooms without a config and skips them.
   */
  rooms(): string {
    return `${this.prefix}rooms`;
  }

  /** Held while a room definition is checked against the others and written (room-definition-lock.ts). */
  roomDefinitionLock(): string {
    return `${this.prefix}admission:room-definition-lock`;
  }

  /** The admission leader's lease: one intake process at a time admits. Value: the holder's id. */
  leaderLease(): string {
    return `${this.prefix}admission:leader`;
  }

  /**
   * The leader's epoch: a counter raised by every new holder of the lease (hold-leader-lease-2.lua, which needs
   * both keys in one slot). Its hash tag is the lease's whole name, and an untagged key hashes by its whole
   * name (REDIS_PREFIX can hold no brace), so both land in one slot while the lease keeps the name that intakes of the previous release hold:
   * during a rolling upgrade old and new processes still contend for one lease.
   */
  leaderEpoch(): string {
    return `${this.prefix}{${this.leaderLease()}}:epoch`;
  }

  /** What the leader measured of the workers' backlog (a hash that expires if no leader renews it). */
  backlogSignal(): string {
    return `${this.prefix}admission:backlog`;
  }

  /** Rate-limit policies changed at run time through the admin API: "<class>.<scope>" -> "<rate>:<burst>" | "off". */
  rateLimitOverrides(): string {
    return `${this.prefix}admission:rate-limits`;
  }

  /** Pub/sub: what a leader tick admitted and ended, for the intakes holding the WebSockets. */
  roomEventsChannel(): string {
    return `${this.prefix}room-events`;
  }

  /** Pub/sub: a room definition or a rate limit changed; every intake reloads at once. */
  configChannel(): string {
    return `${this.prefix}admission-config`;
  }
}
