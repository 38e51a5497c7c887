// REDIS_WAIT_REPLICAS: an accepted request's 202 leaves only once that many replicas of its master have it, so
// a master that dies before replicating loses no request a client was told was accepted.
//
// WAIT cannot run inside Lua, and it blocks the connection it is sent on until replicas answer. So the accepting
// script goes out on the request connection as ever, and once it answered, the request joins its slot's next
// confirmation (ReplicaConfirmer: one fence write and WAIT for every request that joined, on a connection of its
// own).

import type { ScriptCommands, ScriptedCluster, ScriptedRedis } from "@floodgate/redis-scripts";
import type { Redis } from "ioredis";
import { hashSlot } from "./hash-slot.ts";

export interface ReplicaWait {
  /** 0: answer once the master has it (no WAIT sent). */
  replicas: number;
  timeoutMs: number;
}

export const NO_REPLICA_WAIT: ReplicaWait = { replicas: 0, timeoutMs: 0 };

export function replicaWaitOf(config: {
  redisWaitReplicas: number;
  redisWaitTimeoutMs: number;
}): ReplicaWait {
  return { replicas: config.redisWaitReplicas, timeoutMs: config.redisWaitTimeoutMs };
}

/**
 * The script stored the request on its master, but fewer replicas than asked confirmed it within the timeout.
 * Its outcome is unknown to the client: it may survive or be lost with the master. Answered like a store that
 * did not answer in time (503, retry with the same Idempotency-Key), never as accepted.
 */
export class ReplicaShortfallError extends Error {
  readonly wanted: number;
  readonly acknowledged: number;
  constructor(wanted: number, acknowledged: number, cause: Error | null = null) {
    super(
      `WAIT: ${acknowledged} of ${wanted} replicas confirmed the accepted request in time` +
        (cause === null ? "" : ` (${cause.message})`),
    );
    this.name = "ReplicaShortfallError";
    this.wanted = wanted;
    this.acknowledged = acknowledged;
  }
}

/**
 * The scripts that store an accepted request (or, on a cluster, one step of it); each answers [1, ...] stored,
 * [0, ...] an accepted replay, anything else a refusal that stored nothing to confirm.
 */
export type AcceptingScript =
  | "enqueueOperation"
  | "issueCoupon"
  | "reserveOrder"
  | "admitRequest"
  | "reserveCoupon"
  | "commitCouponIssue"
  | "reserveStock"
  | "commitOrder";

/**
 * The script as a function of its usual arguments (keys, then arguments), answered once its write is confirmed
 * (sendAccepting). `slotKey` is any key of the script's slot (its partition's stream, the item's state).
 */
export function acceptingScript<Name extends AcceptingScript>(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  name: Name,
  slotKey: string,
): ScriptCommands[Name] {
  type Args = (string | number)[];
  type Reply = [number, ...unknown[]];
  type Callable = Record<Name, (...a: Args) => Promise<Reply>>;
  return ((...args: Args) =>
    sendAccepting(redis, wait, slotKey, () =>
      (redis as unknown as Callable)[name](...args),
    )) as ScriptCommands[Name];
}

/**
 * Sends an accepting script on the request connection, as ever, and with replicas > 0 answers only once a
 * replica confirmed what it stored: a stored request ([1, ...]) and an accepted replay ([0, ...], whose first
 * answer may have been a 503 for want of a replica) wait for the slot's next confirmation (ReplicaConfirmer); a
 * refusal stored nothing to confirm.
 */
async function sendAccepting(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  slotKey: string,
  send: () => Promise<[number, ...unknown[]]>,
): Promise<[number, ...unknown[]]> {
  const reply = await send();
  if (wait.replicas === 0 || (reply[0] !== 1 && reply[0] !== 0)) return reply;
  await confirmerOf(redis, wait).confirm(redis, slotKey);
  return reply;
}

/**
 * One WAIT for many requests. WAIT blocks the connection it is sent on until replicas acknowledge, and confirms
 * only that connection's writes: sent behind each script on the intake's one connection per master, it let a
 * master confirm one request per replica round trip (bench/results/20261125T153520Z-payments.json: 1,854/s
 * against 3,637/s without). Here every request whose script has answered joins its slot's next confirmation:
 * a fence write in the slot and a WAIT behind it, on a connection of their own, one in flight per slot at a
 * time; the requests that arrive meanwhile join the next. The fence is written after each joined script ran
 * (their replies came first), so if it lands on the same master, a replica that has the fence has them too: a
 * WAIT on it proves theirs, whichever connection wrote them.
 *
 * The same master: on a cluster a failover may move the slot between a script and the fence. So a request joins
 * only if the request connection and the confirming connection agree on the slot's master when it joins, and
 * is confirmed only if the fence went to that master's own connection (never re-routed: a MOVED, a closed
 * connection, a timeout all fail it). Any doubt answers "unconfirmed" (503, may or may not have been stored),
 * never a false 202.
 */
export class ReplicaConfirmer {
  readonly #connection: ScriptedRedis;
  readonly #wait: ReplicaWait;
  readonly #ready: Promise<boolean>;
  readonly #slots = new Map<string, { waiting: Waiter[]; inFlight: boolean }>();

  constructor(connection: ScriptedRedis, wait: ReplicaWait) {
    this.#connection = connection;
    this.#wait = wait;
    // A cluster's slot map is known once it is ready; until then no request can be matched to a master.
    this.#ready = new Promise<boolean>((resolve) => {
      if (connection.status === "ready") return resolve(true);
      const timer = setTimeout(() => resolve(false), Math.max(wait.timeoutMs, 1000));
      connection.once("ready", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /**
   * Resolves once replicas confirmed every write of `slotKey`'s master so far (the caller's script answered
   * first, through `requests`); else rejects with ReplicaShortfallError.
   */
  async confirm(requests: ScriptedRedis, slotKey: string): Promise<void> {
    if (!(await this.#ready)) throw new ReplicaShortfallError(this.#wait.replicas, 0);
    const master = masterOf(this.#connection, slotKey);
    if (master !== masterOf(requests, slotKey)) {
      // Its fences never go through the cluster's routing, so nothing else tells this connection of a failover.
      this.#learnSlots();
      throw new ReplicaShortfallError(this.#wait.replicas, 0);
    }
    let slot = this.#slots.get(slotKey);
    if (slot === undefined) {
      slot = { waiting: [], inFlight: false };
      this.#slots.set(slotKey, slot);
    }
    const joined = slot;
    const confirmed = new Promise<void>((resolve, reject) =>
      joined.waiting.push({ master, resolve, reject }),
    );
    if (!joined.inFlight) void this.#flush(slotKey, joined);
    return confirmed;
  }

  async #flush(slotKey: string, slot: { waiting: Waiter[]; inFlight: boolean }): Promise<void> {
    slot.inFlight = true;
    while (slot.waiting.length > 0) {
      const batch = slot.waiting.splice(0);
      const master = masterOf(this.#connection, slotKey);
      let acknowledged = 0;
      let cause: Error | null = null;
      try {
        // Sent to that master's own connection, never routed by the cluster client: a routed pipeline that
        // fails on a dead master is re-sent to the slot's new master, whose replicas say nothing of the old.
        const node = nodeNamed(this.#connection, master);
        if (node === undefined) throw new Error(`no connection to ${master}, the slot's master`);
        const replies = await node
          .pipeline()
          .set(`${slotKey}:replica-fence`, "1", "PX", 60_000)
          .wait(this.#wait.replicas, this.#wait.timeoutMs)
          .exec();
        const [fence, waited] = repliesOf(replies);
        cause = fence.error ?? waited.error;
        if (cause === null) acknowledged = Number(waited.reply);
      } catch (error) {
        cause = error as Error;
      }
      if (cause !== null) this.#learnSlots();
      for (const waiter of batch) {
        if (cause === null && waiter.master === master && acknowledged >= this.#wait.replicas)
          waiter.resolve();
        else
          waiter.reject(
            new ReplicaShortfallError(
              this.#wait.replicas,
              waiter.master === master ? acknowledged : 0,
              cause,
            ),
          );
      }
    }
    slot.inFlight = false;
  }

  /** Reads the cluster's slot map again (at most one refresh at a time; ioredis keeps it). */
  #learnSlots(): void {
    if (this.#connection.isCluster) (this.#connection as ScriptedCluster).refreshSlotsCache();
  }
}

/** A master's own connection in a cluster client's pool ("host:port"); one Redis is its own. */
function nodeNamed(connection: ScriptedRedis, master: string): Redis | undefined {
  if (!connection.isCluster) return connection as Redis;
  return (connection as ScriptedCluster)
    .nodes("master")
    .find((node) => `${node.options.host}:${node.options.port}` === master);
}

/** The master a connection would send `key` to: its slot's first node on a cluster; one Redis is its own. */
function masterOf(connection: ScriptedRedis, key: string): string {
  if (!connection.isCluster) return "single";
  return (connection as ScriptedCluster).slots[hashSlot(key)]?.[0] ?? "";
}

interface Waiter {
  /** The slot's master when the request joined. */
  master: string;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The confirmer of a request connection: one per connection, on a duplicate of it (same target, same options)
 * made at the first request that needs one, and closed with it.
 */
const confirmers = new WeakMap<ScriptedRedis, ReplicaConfirmer>();

function confirmerOf(redis: ScriptedRedis, wait: ReplicaWait): ReplicaConfirmer {
  let confirmer = confirmers.get(redis);
  if (confirmer === undefined) {
    const connection = redis.duplicate() as ScriptedRedis;
    connection.on("error", () => {}); // its failures reach the waiting requests as unconfirmed
    redis.once("end", () => connection.disconnect());
    confirmer = new ReplicaConfirmer(connection, wait);
    confirmers.set(redis, confirmer);
  }
  return confirmer;
}

interface PipelineReply {
  error: Error | null;
  reply: unknown;
}

function repliesOf(replies: [Error | null, unknown][] | null): [PipelineReply, PipelineReply] {
  if (replies === null || replies.length !== 2) throw new Error("the accepting pipeline did not run");
  const [first, second] = replies.map(([error, reply]) => ({ error, reply })) as [
    PipelineReply,
    PipelineReply,
  ];
  return [first, second];
}
