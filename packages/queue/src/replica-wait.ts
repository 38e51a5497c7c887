// REDIS_WAIT_REPLICAS: an accepted request's 202 leaves only once that many replicas of its master have it, so
// a master that dies before replicating loses no request a client was told was accepted.
//
// WAIT counts the writes of the connection that sends it, on the node it reaches, and cannot run inside Lua. So
// it goes in ONE explicit pipeline with the accepting script: one write, two replies. On a cluster ioredis sends a
// pipeline to its keyed commands' slot and the keyless WAIT follows, to the same master on the same connection.
import type {
  ScriptCommands,
  ScriptedCluster,
  ScriptedPipeline,
  ScriptedRedis,
} from "@floodgate/redis-scripts";

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
 * The script as a function of its usual arguments (keys, then arguments): sent alone when no replica must
 * confirm, else through sendAccepting. `slotKey` is any key of the script's slot (its partition's stream).
 */
export function acceptingScript<Name extends AcceptingScript>(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  name: Name,
  slotKey: string,
): ScriptCommands[Name] {
  type Args = (string | number)[];
  type Reply = [number, ...unknown[]];
  type Callable = Record<Name, (...a: Args) => Promise<Reply> & ScriptedPipeline>;
  const script = (target: ScriptedRedis | ScriptedPipeline, args: Args) =>
    (target as unknown as Callable)[name](...args);
  return ((...args: Args) =>
    sendAccepting(redis, wait, slotKey, {
      queue: (pipeline) => script(pipeline, args),
      send: (connection) => script(connection, args),
    })) as ScriptCommands[Name];
}

interface AcceptingCall {
  /** Adds the script to a pipeline (the WAIT path). */
  queue(pipeline: ScriptedPipeline): ScriptedPipeline;
  /** Sends the script alone (REDIS_WAIT_REPLICAS=0: one command, as ever). */
  send(redis: ScriptedRedis): Promise<[number, ...unknown[]]>;
}

/**
 * Sends an accepting script, and with replicas > 0 a WAIT behind it in the same write. A refusal's WAIT reply is
 * ignored (nothing new was stored). A replay of an accepted request is confirmed too: its first answer may have
 * been a 503 because WAIT fell short, and this connection's writes may all predate the stored request (another
 * intake stored it), so its WAIT proves nothing; a fence write in the same slot (after the request, in the
 * replication stream's order) and a WAIT on it do. That second round trip is paid by replays only.
 */
async function sendAccepting(
  redis: ScriptedRedis,
  wait: ReplicaWait,
  slotKey: string,
  call: AcceptingCall,
): Promise<[number, ...unknown[]]> {
  if (wait.replicas === 0) return call.send(redis);
  const send = async () =>
    repliesOf(await call.queue(redis.pipeline()).wait(wait.replicas, wait.timeoutMs).exec());
  let [script, waited] = await send();
  if (script.error !== null && redirected(script.error) && redis.isCluster) {
    // The slot moved (a failover, a reshard) and the script did not run. ioredis re-sends a pipeline that got
    // MOVED only when nothing else in it succeeded, and the WAIT did: learn the new map and send it once more.
    await new Promise<void>((resolve) => (redis as ScriptedCluster).refreshSlotsCache(() => resolve()));
    [script, waited] = await send();
  }
  if (script.error !== null) throw script.error;
  const reply = script.reply as [number, ...unknown[]];
  // A refusal stored nothing to confirm (a replayed refusal included): its WAIT reply is not looked at.
  if (reply[0] !== 1 && reply[0] !== 0) return reply;
  if (reply[0] === 1) {
    confirmed(wait, waited);
    return reply;
  }
  const fenced = await redis
    .pipeline()
    .set(`${slotKey}:replica-fence`, "1", "PX", 60_000)
    .wait(wait.replicas, wait.timeoutMs)
    .exec();
  const [fence, fenceWaited] = repliesOf(fenced);
  // A fence that failed stored nothing new, but the replayed request is still unconfirmed: same answer.
  confirmed(wait, fence.error === null ? fenceWaited : { error: fence.error, reply: null });
  return reply;
}

/** MOVED or ASK: the node that got the script does not serve its slot, so the script did not run. */
function redirected(error: Error): boolean {
  return /^(MOVED|ASK) /.test(error.message);
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

/**
 * The request is stored on its master; anything short of the replicas' confirmation (too few by the timeout, or
 * WAIT itself failing, e.g. the connection lost after the script ran) leaves its fate unknown to the client.
 */
function confirmed(wait: ReplicaWait, waited: PipelineReply): void {
  const acknowledged = waited.error === null ? Number(waited.reply) : 0;
  if (acknowledged < wait.replicas)
    throw new ReplicaShortfallError(wait.replicas, acknowledged, waited.error);
}
