import { ConfigError } from "./env-reader.ts";
import { type Config, loadConfig } from "./load-config.ts";

/** For an app's src/env.ts: a bad value ends the process with one line naming the variable. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`floodgate: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
