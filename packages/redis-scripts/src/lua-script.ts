// A Lua script's typed wrapper: what its keys and arguments are, built from named fields, and what its reply
// means, decoded into named fields. One wrapper per script, in a file beside it (commands/<name>.ts beside
// commands/<name>-<keys>.lua, BullMQ's layout), so the order of 10 keys and 15 arguments is written down once,
// next to the Lua that reads them, and callers never count positions.
import type { ChainableCommander } from "ioredis";
import type { ScriptedRedis } from "./define-scripts.ts";

export type ScriptArgument = string | number;

export interface LuaScriptSpec<Input, Reply, Result> {
  /** The script's file in commands/: `<name>-<number of keys>.lua`, or `<name>-n.lua` for a variable number. */
  file: string;
  /** KEYS, in the order the script reads them. */
  keys(input: Input): readonly string[];
  /** ARGV, in the order the script reads them. */
  args(input: Input): readonly ScriptArgument[];
  /** The script's reply as Redis returns it, in named fields. */
  decode(reply: Reply): Result;
}

export interface LuaScript<Input, Result> {
  readonly file: string;
  /** The command defineScripts registered for the file (camelCase of its name). */
  readonly command: string;
  /** What follows the command's name: the number of keys for a `-n` script, the keys, the arguments. */
  argv(input: Input): ScriptArgument[];
  /** A reply of this script (e.g. from a pipeline's exec) in named fields. */
  decode(reply: unknown): Result;
  /** Sends the script and decodes its reply. */
  run(redis: ScriptedRedis, input: Input): Promise<Result>;
  /** Adds the script to a pipeline; decode its reply from exec()'s result with decode(). */
  queue<Pipeline extends ChainableCommander>(pipeline: Pipeline, input: Input): Pipeline;
}

type RawCommand = (...argv: ScriptArgument[]) => Promise<unknown>;

const FILE = /^([a-z-]+)-(\d+|n)\.lua$/;

/** The command name defineScripts registers a file under, and its fixed number of keys (null: `-n`). */
export function commandOf(file: string): { command: string; numberOfKeys: number | null } {
  const match = FILE.exec(file);
  if (!match) throw new Error(`${file}: a script file is named <name>-<number of keys | n>.lua`);
  const [, name, keys] = match;
  return {
    command: name!.replace(/-([a-z])/g, (_, char: string) => char.toUpperCase()),
    numberOfKeys: keys === "n" ? null : Number(keys),
  };
}

export function luaScript<Input, Reply, Result>(
  spec: LuaScriptSpec<Input, Reply, Result>,
): LuaScript<Input, Result> {
  const { command, numberOfKeys } = commandOf(spec.file);
  const argv = (input: Input): ScriptArgument[] => {
    const keys = spec.keys(input);
    // A wrong count would shift every argument into KEYS or out of it: refuse it here, not as a puzzle in Lua.
    if (numberOfKeys !== null && keys.length !== numberOfKeys) {
      throw new Error(`${spec.file} takes ${numberOfKeys} keys, was given ${keys.length}`);
    }
    const args = spec.args(input);
    return numberOfKeys === null ? [keys.length, ...keys, ...args] : [...keys, ...args];
  };
  const decode = (reply: unknown) => spec.decode(reply as Reply);
  // Called on the intake's hot path: the method is applied to its connection, no bound copy made per call.
  const send = (target: object, input: Input): unknown => {
    const method = (target as Record<string, RawCommand | undefined>)[command];
    if (typeof method !== "function") {
      throw new Error(`${spec.file} is not defined on this connection (create it with defineScripts)`);
    }
    return method.apply(target, argv(input));
  };
  return {
    file: spec.file,
    command,
    argv,
    decode,
    run: async (redis, input) => decode(await send(redis, input)),
    queue: (pipeline, input) => {
      send(pipeline, input);
      return pipeline;
    },
  };
}
