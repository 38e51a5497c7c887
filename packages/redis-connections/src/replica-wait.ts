// REDIS_WAIT_REPLICAS: an accepted request's 202 leaves only once that many replicas of its master have it, so
// a master that dies before replicating loses no request a client was told was accepted.
//
// WAIT cannot run inside Lua, and it blocks the connection it is sent on until replicas answer. So the accepting
// script goes out on the request connection as ever, and once it answered, the request joins its master's next
// confirmation (ReplicaConfirmer: one fence write and WAIT for every request that joined, on a connection of its
// own).
import {
  type LuaScript,
  type ManyRequestScript,
  type ScriptAnswer,
  type ScriptedRedis,
  sendInTurn,
} from "@floodgate/redis-scripts";
import type { Cluster, Redis } from "ioredis";
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
 * The script as a function of its input, answered once what it stored is confirmed (sendAccepting). It is one of
 * the scripts that store an accepted request (or, on a cluster, one step of it): each answers code 1 stored, 0 an
 * accepted replay, anything else a refusal that stored nothing to confirm. `slotKey` is any key of the script's
 * slot (its partition's stream, the item's state).
 */
export function acceptingScript<Input, Result extends { code: number }>(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  script: LuaScript<Input, Result>,
  slotKey: string,
): (input: Input) => Promise<Result> {
  return (input) => sendAccepting(redis, wait, slotKey, () => script.run(redis, input));
}

const asAnswered = (answer: ScriptAnswer): ScriptAnswer => answer;

/**
 * One request of an accepting script that takes many, sent with the others of its turn in `group` (sendInTurn),
 * and answered as sendAccepting answers: with replicas > 0, once its master's next confirmation covers what it
 * stored. Resolves to what `map` makes of its answer.
 */
export function acceptInTurn<Input, T>(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  slotKey: string,
  script: ManyRequestScript<Input, ScriptAnswer>,
  group: number,
  input: Input,
  map: (answer: ScriptAnswer) => T,
): Promise<T> {
  if (wait.replicas === 0) return sendInTurn(redis, script, group, input, map);
  return sendAccepting(redis, wait, slotKey, () => sendInTurn(redis, script, group, input, asAnswered)).then(
    map,
  );
}

/**
 * Sends an accepting script on the request connection, as ever, and with replicas > 0 answers only once a
 * replica confirmed what it stored: a stored request (code 1) and an accepted replay (code 0, whose first answer
 * may have been a 503 for want of a replica) wait for their master's next confirmation (ReplicaConfirmer); a
 * refusal stored nothing to confirm.
 */
export async function sendAccepting<Result extends { code: number }>(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  slotKey: string,
  send: () => Promise<Result>,
): Promise<Result> {
  // The master the script goes to: a slot map that changed while it ran (a failover seen by a refresh, a MOVED
  // followed) leaves no telling which master stored it, so no confirmation of the new one can stand for it.
  const sentTo = wait.replicas === 0 ? "" : masterOf(redis, slotKey);
  const reply = await send();
  if (wait.replicas === 0 || (reply.code !== 1 && reply.code !== 0)) return reply;
  if (masterOf(redis, slotKey) !== sentTo) throw new ReplicaShortfallError(wait.replicas, 0);
  await confirmerOf(redis, wait).confirm(redis, slotKey);
  return reply;
}

/**
 * Resolves once `wait.replicas` replicas of `slotKey`'s master have everything that master wrote before now, as
 * the connection `redis` sees that master (ReplicaConfirmer); else rejects with ReplicaShortfallError. For a
 * reader: entries `redis` read from the slot are on the replicas once this resolves (they were written before).
 */
export function confirmReplicated(redis: ScriptedRedis, wait: ReplicaWait, slotKey: string): Promise<void> {
  return confirmerOf(redis, wait).confirm(redis, slotKey);
}

/**
 * One WAIT for many requests. WAIT blocks the connection it is sent on until replicas acknowledge, and confirms
 * only that connection's writes: sent behind each script on the intake's one connection per master, it let a
 * master confirm one request per replica round trip (measured at commit 44d31e8,
 * bench/results/20261125T153520Z-payments.json in git history: 1,854/s against 3,637/s without). Here every
 * request whose script has answered joins its master's next confirmation: a fence write in one of the batch's
 * slots and a WAIT behind it, on a connection of their own, one in flight per master at a time; the requests
 * that arrive meanwhile join the next. The fence is written after each joined script ran (their replies came
 * first), so if it lands on the same master, a replica that has the fence has them too: a WAIT on it proves
 * theirs, whichever connection wrote them.
 *
 * The same master: on a cluster a failover may move the slot between a script and the fence. So a request joins
 * only if the request connection and the confirming connection agree on the slot's master when it joins, and
 * is confirmed only if the fence went to that master's own connection while it still served the fence's slot
 * (never re-routed: a MOVED, a closed connection, a timeout all fail it). Any doubt answers "unconfirmed" (503,
 * may or may not have been stored), never a false 202.
 */
export class ReplicaConfirmer {
  readonly #connection: Connection;
  readonly #wait: ReplicaWait;
  /** While the connection is not ready: the one wait for it that every confirmation shares. */
  #readiness: Promise<boolean> | null = null;
  /** Per master ("host:port"; "single" for one Redis): the requests waiting for its next confirmation. */
  readonly #masters = new Map<string, { waiting: Waiter[]; inFlight: boolean }>();

  constructor(connection: Connection, wait: ReplicaWait) {
    this.#connection = connection;
    this.#wait = wait;
  }

  /**
   * Resolves once replicas confirmed every write of `slotKey`'s master so far (the caller's script answered
   * first, through `requests`); else rejects with ReplicaShortfallError.
   */
  async confirm(requests: ScriptedRedis, slotKey: string): Promise<void> {
    if (!(await this.#ready())) throw new ReplicaShortfallError(this.#wait.replicas, 0);
    const master = masterOf(this.#connection, slotKey);
    if (master !== masterOf(requests, slotKey)) {
      // Its fences never go through the cluster's routing, so nothing else tells this connection of a failover.
      this.#learnSlots();
      throw new ReplicaShortfallError(this.#wait.replicas, 0);
    }
    let group = this.#masters.get(master);
    if (group === undefined) {
      group = { waiting: [], inFlight: false };
      this.#masters.set(master, group);
    }
    const joined = group;
    const confirmed = new Promise<void>((resolve, reject) =>
      joined.waiting.push({ slotKey, resolve, reject }),
    );
    if (!joined.inFlight) void this.#flush(master, joined);
    return confirmed;
  }

  /**
   * Ready now, or within the WAIT's timeout (1 s at least): a cluster's slot map is known once it is ready.
   * Asked at every confirmation, so a connection that came up late, or back after a loss, serves again.
   */
  #ready(): Promise<boolean> {
    const connection = this.#connection;
    if (connection.status === "ready") return Promise.resolve(true);
    this.#readiness ??= new Promise<boolean>((resolve) => {
      const settle = (ready: boolean) => {
        clearTimeout(timer);
        connection.off("ready", onReady);
        this.#readiness = null;
        resolve(ready);
      };
      const onReady = () => settle(true);
      const timer = setTimeout(() => settle(false), Math.max(this.#wait.timeoutMs, 1000));
      connection.once("ready", onReady);
    });
    return this.#readiness;
  }

  async #flush(master: string, group: { waiting: Waiter[]; inFlight: boolean }): Promise<void> {
    group.inFlight = true;
    while (group.waiting.length > 0) {
      const batch = group.waiting.splice(0);
      // The fence goes in the slot of the batch's first request: one of this master's slots when it joined.
      const fenceKey = batch[0]!.slotKey;
      const stillThere = masterOf(this.#connection, fenceKey) === master;
      let acknowledged = 0;
      let cause: Error | null = null;
      try {
        // Sent to that master's own connection, never routed by the cluster client: a routed pipeline that
        // fails on a dead master is re-sent to the slot's new master, whose replicas say nothing of the old.
        const node = stillThere ? nodeNamed(this.#connection, master) : undefined;
        if (node === undefined) throw new Error(`${master} no longer serves ${fenceKey}'s slot`);
        const pipeline = node.pipeline().set(`${fenceKey}:replica-fence`, "1", "PX", 60_000);
        // Each waiter's slot asked of this master too: a slot it no longer serves, or one being moved whose keys
        // went ahead (a script that ran on the new owner after an ASK, which no slot map shows), answers MOVED or
        // ASK here, and the batch is not confirmed.
        const slotKeys = [...new Set(batch.map((waiter) => waiter.slotKey))];
        for (const key of slotKeys) pipeline.exists(key);
        const replies = await pipeline.wait(this.#wait.replicas, this.#wait.timeoutMs).exec();
        if (replies === null || replies.length !== slotKeys.length + 2) {
          throw new Error("the replica fence did not run");
        }
        cause = replies.find(([error]) => error !== null)?.[0] ?? null;
        if (cause === null) acknowledged = Number(replies[replies.length - 1]![1]);
      } catch (error) {
        cause = error as Error;
      }
      if (cause !== null) this.#learnSlots();
      for (const waiter of batch) {
        if (cause === null && acknowledged >= this.#wait.replicas) waiter.resolve();
        else waiter.reject(new ReplicaShortfallError(this.#wait.replicas, acknowledged, cause));
      }
    }
    group.inFlight = false;
  }

  /** Reads the cluster's slot map again (at most one refresh at a time; ioredis keeps it). */
  #learnSlots(): void {
    if (this.#connection.isCluster) (this.#connection as Cluster).refreshSlotsCache();
  }

  /** Closes its connection (the request connection ended). */
  close(): void {
    this.#connection.disconnect();
  }
}

/** The confirming connection: a duplicate of the request connection, without the scripts (it sends none). */
type Connection = Redis | Cluster;

/** A master's own connection in a cluster client's pool ("host:port"); one Redis is its own. */
function nodeNamed(connection: Connection, master: string): Redis | undefined {
  if (!connection.isCluster) return connection as Redis;
  return (connection as Cluster)
    .nodes("master")
    .find((node) => `${node.options.host}:${node.options.port}` === master);
}

/**
 * The master a connection would send `key` to ("host:port"): its slot's first node on a cluster. One Redis is
 * its own ("single"): both connections are made from one REDIS_URL and are taken to reach the same server.
 */
export function masterOf(connection: Connection, key: string): string {
  if (!connection.isCluster) return "single";
  return (connection as Cluster).slots[hashSlot(key)]?.[0] ?? "";
}

interface Waiter {
  /** A key of the slot its script wrote (on the group's master when it joined). */
  slotKey: string;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The confirmers of a request connection, one per REDIS_WAIT_REPLICAS/REDIS_WAIT_TIMEOUT_MS pair, each on a
 * duplicate of it (same target and options, but a command timeout that outlasts the WAIT) made at the first
 * request that needs one, and closed with it.
 */
const confirmers = new WeakMap<ScriptedRedis, Map<string, ReplicaConfirmer>>();

function confirmerOf(redis: ScriptedRedis, wait: ReplicaWait): ReplicaConfirmer {
  let mine = confirmers.get(redis);
  if (mine === undefined) {
    const made = new Map<string, ReplicaConfirmer>();
    mine = made;
    confirmers.set(redis, made);
    // A request connection that ends takes its confirming connections with it; one made again starts afresh.
    redis.once("end", () => {
      confirmers.delete(redis);
      for (const confirmer of made.values()) confirmer.close();
    });
  }
  const setting = `${wait.replicas}/${wait.timeoutMs}`;
  let confirmer = mine.get(setting);
  if (confirmer === undefined) {
    const connection = duplicateFor(redis, wait.timeoutMs + 1000);
    connection.on("error", () => {}); // its failures reach the waiting requests as unconfirmed
    confirmer = new ReplicaConfirmer(connection, wait);
    mine.set(setting, confirmer);
  }
  return confirmer;
}

function duplicateFor(redis: ScriptedRedis, commandTimeout: number): Connection {
  if (redis.isCluster) {
    const cluster = redis as Cluster;
    return cluster.duplicate([], { redisOptions: { ...cluster.options.redisOptions, commandTimeout } });
  }
  return (redis as Redis).duplicate({ commandTimeout });
}
