export { configToEnv } from "./config-env.ts";
export { freePort } from "./free-port.ts";
export { type IntakeProcess, startIntakeProcess } from "./intake-process.ts";
export { type RedisCluster, type RedisClusterOptions, startRedisCluster } from "./redis-cluster.ts";
export { type RedisServer, type RedisServerOptions, startRedisServer } from "./redis-server.ts";
export { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";
export {
  createTestEnvironment,
  serverKeyFor,
  type TestEnvironment,
  type TestEnvironmentOptions,
} from "./test-environment.ts";
export { startWorkerProcess, type WorkerProcess } from "./worker-process.ts";
