// Lua lives in commands/, one file per script named <name>-<numberOfKeys>.lua (the BullMQ convention; `-n` for a
// variable number of keys, which the caller passes first), with its typed wrapper beside it (commands/<name>.ts:
// callers use the wrapper, never the raw command). Each is loaded once per connection with defineCommand, so
// calls go out as EVALSHA with a transparent EVAL fallback. Shared Lua lives in commands/includes and is pasted
// where a script says `--- @include "<name>"` (again BullMQ's way).
import { readdirSync, readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";
import { commandOf } from "./lua-script.ts";

const LUA_DIR = new URL("./commands/", import.meta.url);
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

// A connection made by defineScripts, as a type: the wrappers take only these, so a script never goes to a
// connection that does not know it. The raw commands are not typed on purpose: callers use the wrappers.
declare const scriptsDefined: unique symbol;
interface ScriptsDefined {
  readonly [scriptsDefined]: true;
}

/** One Redis with the scripts defined on it. */
export type ScriptedSingleRedis = Redis & ScriptsDefined;

/** A Redis Cluster client with the scripts defined on it (a script's keys must share one slot). */
export type ScriptedCluster = Cluster & ScriptsDefined;

/** What createRedis returns: one Redis or a cluster, as REDIS_URL says; both speak the same commands. */
export type ScriptedRedis = ScriptedSingleRedis | ScriptedCluster;

export function defineScripts(redis: Redis): ScriptedSingleRedis;
export function defineScripts(redis: Cluster): ScriptedCluster;
export function defineScripts(redis: Redis | Cluster): ScriptedRedis {
  for (const file of readdirSync(LUA_DIR)) {
    if (!file.endsWith(".lua")) continue;
    const { command, numberOfKeys } = commandOf(file);
    redis.defineCommand(command, {
      ...(numberOfKeys === null ? {} : { numberOfKeys }),
      lua: scriptSource(file),
    });
  }
  return redis as ScriptedRedis;
}
