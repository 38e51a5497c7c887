export { ConfigError } from "./env-reader.ts";
export {
  ADMIN_API_KEY_PATTERN,
  type Config,
  defaultShardUrls,
  LOG_LEVELS,
  type LogLevel,
  loadConfig,
} from "./load-config.ts";
export { loadConfigOrExit } from "./load-config-or-exit.ts";
