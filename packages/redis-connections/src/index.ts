// How a process reaches the app's Redis, one Redis or a Cluster alike: the connections (with the scripts
// defined on them), the wait for replicas behind an accepted write, pipelines that fail loudly, and the hash
// slot of a key. It knows no key layout (that is @floodgate/queue's QueueKeys) and nothing of what is stored.
// The scripted connection types are re-exported because createRedis returns them.
export type {
  ScriptedCluster,
  ScriptedRedis,
  ScriptedSingleRedis,
} from "@floodgate/redis-scripts";
export {
  createJobQueueConnection,
  createRedis,
  createSubscriber,
  type RedisConnection,
  type RedisConnectionOptions,
  waitForRedis,
} from "./create-redis.ts";
export { hashSlot } from "./hash-slot.ts";
export { execOrThrow, PipelineError } from "./pipeline-replies.ts";
export {
  acceptInTurn,
  acceptingScript,
  confirmReplicated,
  masterOf,
  NO_REPLICA_WAIT,
  ReplicaShortfallError,
  type ReplicaWait,
  replicaWaitOf,
  sendAccepting,
} from "./replica-wait.ts";
