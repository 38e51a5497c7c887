// Lua lives in ../lua, one file per script named <name>-<numberOfKeys>.lua (the BullMQ convention; `-n` for a
// variable number of keys, which the caller passes first). Each is loaded once per connection with
// defineCommand, so calls go out as EVALSHA with a transparent EVAL fallback. Shared Lua lives in
// ../lua/includes and is pasted where a script says `--- @include "<name>"` (again BullMQ's way).
import { readdirSync, readFileSync } from "node:fs";
import type { ChainableCommander, Cluster, Redis } from "ioredis";

const LUA_DIR = new URL("../lua/", import.meta.url);
const INCLUDE = /^--- @include "([a-z-]+)"$/gm;

/** A script's source with its includes pasted in, includes of includes first, each once. */
export function scriptSource(file: string): string {
  const pasted = new Set<string>();
  const expand = (source: string): string =>
    source.replace(INCLUDE, (_, name: string) => {
      if (pasted.has(name)) return "";
      pasted.add(name);
      return expand(readFileSync(new URL(`includes/${name}.lua`, LUA_DIR), "utf8"));
    });
  return expand(readFileSync(new URL(file, LUA_DIR), "utf8"));
}

/** The scripts, as methods of a connection that defined them (see defineScripts). */
export interface ScriptCommands {
  /** enqueue-operation-6.lua: the 3 admission keys, 3 keys, the 5 admission arguments, 4 arguments. */
  enqueueOperation(...keysThenArgs: (string | number)[]): Promise<[number, string, string?]>;
  /** issue-coupon-9.lua: the 3 admission keys, 6 keys, the 5 admission arguments, 8 arguments. */
  issueCoupon(...keysThenArgs: (string | number)[]): Promise<[number, string, string?, number?]>;
  /** admit-request-4.lua: the 3 admission keys, the idempotency key, the 5 admission arguments, fingerprint, TTL. */
  admitRequest(...keysThenArgs: (string | number)[]): Promise<[number, string, string?, number?]>;
  /** reserve-coupon-3.lua: state, holders, reservations; issue id, user id. [1, reservedAtMs] or a refusal. */
  reserveCoupon(
    stateKey: string,
    holdersKey: string,
    reservationsKey: string,
    issueId: string,
    userId: string,
  ): Promise<[number, number | string]>;
  /** release-coupon-3.lua: state, holders, reservations; issue id, user id. 1 released, 0 nothing held. */
  releaseCoupon(
    stateKey: string,
    holdersKey: string,
    reservationsKey: string,
    issueId: string,
    userId: string,
  ): Promise<number>;
  /** commit-coupon-issue-4.lua: status, stream, redemption record, idempotency key; 10 arguments. */
  commitCouponIssue(...keysThenArgs: (string | number)[]): Promise<[number, string, string?, number?]>;
  /** record-refusal-1.lua: idempotency key; fingerprint, TTL, code, value. */
  recordRefusal(
    idempotencyKey: string,
    fingerprint: string,
    ttlSeconds: number,
    code: number,
    value: string,
  ): Promise<[number, string, string?, number?]>;
  /** reserve-stock-2.lua: product state, reservations; order id, user id, units. [1, price, cap, reservedAtMs]. */
  reserveStock(
    productStateKey: string,
    reservationsKey: string,
    orderId: string,
    userId: string,
    units: number,
  ): Promise<[number, string, string?, number?]>;
  /** release-stock-2.lua: product state, reservations; order id, user id, units. 1 released, 0 nothing held. */
  releaseStock(
    productStateKey: string,
    reservationsKey: string,
    orderId: string,
    userId: string,
    units: number,
  ): Promise<number>;
  /** return-stock-2.lua: product state, the order's marker; units, marker TTL. 1 returned now, 0 before. */
  returnStock(
    productStateKey: string,
    markerKey: string,
    units: number,
    markerTtlSeconds: number,
  ): Promise<number>;
  /** commit-order-5.lua: 5 keys, then 15 arguments and 4 per line. */
  commitOrder(...keysThenArgs: (string | number)[]): Promise<[number, string, string?, number?]>;
  changeProduct(
    productStateKey: string,
    price: number | "",
    stockAdded: number,
    maxUnitsPerUser: number | "",
  ): Promise<[number, number]>;
  /** reserve-order-n.lua: the caller passes the number of keys first. The 4th element is 1 on a replayed refusal. */
  reserveOrder(
    numberOfKeys: number,
    ...keysThenArgs: (string | number)[]
  ): Promise<[number, string, string?, number?]>;
  requestOrderEnd(
    orderStateKey: string,
    statusKey: string,
    streamKey: string,
    endId: string,
    orderId: string,
    reason: string,
    createdAt: number,
    ownerUserId: string,
  ): Promise<[number, string]>;
  trimAcknowledged(streamKey: string, group: string): Promise<number>;
  /** take-token-1.lua: a client address's bucket; ms per token, burst. [ok 1|0, remaining, resetMs]. */
  takeToken(bucketKey: string, intervalMs: number, burst: number): Promise<[number, number, number]>;
  /** finish-operations-n.lua: the caller passes the number of keys first (one partition's). */
  finishOperations(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  /** release-order-n.lua: the caller passes the number of keys first. */
  releaseOrder(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  /** settle-unpaid-units-n.lua: the caller passes the number of keys first. */
  settleUnpaidUnits(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  /** join-room-9.lua: 9 keys, then ticket id, user id, random score. */
  joinRoom(...keysThenArgs: (string | number)[]): Promise<string[] | [number, string]>;
  /** read-ticket-4.lua: tickets, queue, pre-queue, heartbeats; ticket id. */
  readTicket(...keysThenArgs: string[]): Promise<string[]>;
  /** admit-room-10.lua: the room's 10 keys, then leader epoch, backpressure, cool-down ms, channel, room id, step
   * limit, ended tickets' retention ms. */
  admitRoom(...keysThenArgs: (string | number)[]): Promise<(number | string)[]>;
  /** revoke-ticket-6.lua: tickets, queue, pre-queue, heartbeats, sessions, ended; ticket id, channel, room id.
   * [status before, userId, expiresAt ("" never admitted)], or [] for no such ticket. */
  revokeTicket(...keysThenArgs: string[]): Promise<[string, string, string] | []>;
  /** grant-pass-1.lua: the user's room passes; ticket id, expiresAt, ended tickets' retention ms. 1, or 0 if
   * the ticket's pass was revoked. */
  grantPass(passesKey: string, ticketId: string, expiresAt: number, retentionMs: number): Promise<number>;
  /** revoke-pass-1.lua: the user's room passes; ticket id, expiresAt ("" never admitted), retention ms. */
  revokePass(
    passesKey: string,
    ticketId: string,
    expiresAt: number | "",
    retentionMs: number,
  ): Promise<number>;
  /** count-room-traffic-1.lua: the room's state; requests counted since the last flush. */
  countRoomTraffic(roomStateKey: string, count: number): Promise<number>;
  holdLease(leaseKey: string, holderId: string, leaseMs: number): Promise<number>;
  /** hold-leader-lease-2.lua: our epoch (>= 1) while we hold the lease, else 0. */
  holdLeaderLease(
    leaseKey: string,
    epochKey: string,
    holderId: string,
    leaseMs: number,
    epochSeenByARoom: number,
  ): Promise<number>;
  /** claim-dead-letter-3.lua: claim, status hash, stream; action, operation id, message, claim TTL seconds. */
  claimDeadLetter(
    claimKey: string,
    statusKey: string,
    streamKey: string,
    action: "replay" | "drop",
    operationId: string,
    message: string,
    claimTtlSeconds: number,
  ): Promise<[number, string]>;
}

/** One Redis with the scripts defined on it. */
export interface ScriptedSingleRedis extends Redis, ScriptCommands {
  pipeline(): ScriptedPipeline;
}

/** A Redis Cluster client with the scripts defined on it (a script's keys must share one slot). */
export interface ScriptedCluster extends Cluster, ScriptCommands {
  pipeline(): ScriptedPipeline;
}

/** What createRedis returns: one Redis or a cluster, as REDIS_URL says; both speak the same commands. */
export type ScriptedRedis = ScriptedSingleRedis | ScriptedCluster;

/** A pipeline that also knows the scripts (ioredis adds them at run time; its types do not). */
export interface ScriptedPipeline extends ChainableCommander {
  trimAcknowledged(streamKey: string, group: string): ScriptedPipeline;
  finishOperations(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
  releaseOrder(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
  settleUnpaidUnits(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
  readTicket(...keysThenArgs: string[]): ScriptedPipeline;
  // The accepting scripts, for REDIS_WAIT_REPLICAS: [script, WAIT] in one pipeline (packages/queue replica-wait.ts).
  enqueueOperation(...keysThenArgs: (string | number)[]): ScriptedPipeline;
  issueCoupon(...keysThenArgs: (string | number)[]): ScriptedPipeline;
  reserveOrder(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
  // The two steps of a coupon issue on a cluster, each confirmed by WAIT in its own slot.
  admitRequest(...keysThenArgs: (string | number)[]): ScriptedPipeline;
  reserveCoupon(
    stateKey: string,
    holdersKey: string,
    reservationsKey: string,
    issueId: string,
    userId: string,
  ): ScriptedPipeline;
  commitCouponIssue(...keysThenArgs: (string | number)[]): ScriptedPipeline;
  reserveStock(
    productStateKey: string,
    reservationsKey: string,
    orderId: string,
    userId: string,
    units: number,
  ): ScriptedPipeline;
  commitOrder(...keysThenArgs: (string | number)[]): ScriptedPipeline;
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, char: string) => char.toUpperCase());

export function defineScripts(redis: Redis): ScriptedSingleRedis;
export function defineScripts(redis: Cluster): ScriptedCluster;
export function defineScripts(redis: Redis | Cluster): ScriptedRedis {
  for (const file of readdirSync(LUA_DIR)) {
    const match = /^([a-z-]+)-(\d+|n)\.lua$/.exec(file);
    if (!match) continue;
    const [, name, keys] = match;
    redis.defineCommand(camelCase(name!), {
      ...(keys === "n" ? {} : { numberOfKeys: Number(keys) }),
      lua: scriptSource(file),
    });
  }
  return redis as ScriptedRedis;
}
