export { configToEnv } from "./config-env.ts";
export { freePort } from "./free-port.ts";
export { type IntakeProcess, startIntakeProcess } from "./intake-process.ts";
export { connectRedis } from "./redis-by-url.ts";
export {
  type ClusterRoles,
  type RedisCluster,
  type RedisClusterOptions,
  startRedisCluster,
  waitUntilClusterFormed,
} from "./redis-cluster.ts";
export {
  countKeys,
  forEachMaster,
  isCluster,
  masterConnections,
  type RedisClient,
  type ScanOptions,
  scanBatches,
  scanKeys,
  unlinkMatching,
} from "./redis-masters.ts";
export { type RedisServer, type RedisServerOptions, startRedisServer } from "./redis-server.ts";
export { countScriptCalls, type ScriptCalls } from "./script-calls.ts";
export { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";
export {
  createTestEnvironment,
  serverKeyFor,
  type TestEnvironment,
  type TestEnvironmentOptions,
  testRedisUrl,
} from "./test-environment.ts";
export { startWorkerProcess, type WorkerProcess } from "./worker-process.ts";
