export type { ConfiguredSigningKey } from "./admission-signing-keys.ts";
export type { CustomerJwtSettings } from "./customer-jwt.ts";
export { ConfigError } from "./env-reader.ts";
export { knownEnvironmentVariables } from "./known-variables.ts";
export { INTAKE_LISTEN_BACKLOG } from "./listen-backlog.ts";
export {
  ADMIN_API_KEY_PATTERN,
  ADMISSION_TOKEN_SECRET_PATTERN,
  type Config,
  CUSTOMER_TOKEN_SECRET_PATTERN,
  defaultShardUrls,
  isLoopbackHost,
  LOG_LEVELS,
  type LogLevel,
  loadConfig,
  type TrustProxy,
  type WebhookSettings,
} from "./load-config.ts";
export { loadConfigOrExit } from "./load-config-or-exit.ts";
export {
  countOpenFiles,
  OpenFilesExhaustedError,
  openFilesLimit,
  parseOpenFilesLimit,
} from "./open-files.ts";
export { parseRateLimits } from "./rate-limits.ts";
export { parseRedisUrl, type RedisNodeAddress, type RedisTarget, redactRedisUrl } from "./redis-target.ts";
