// Counts what a connection sends to Redis as a script (EVALSHA, or EVAL the first time on a connection): how a
// test sees requests of one turn share one call (turn-batches.ts in @floodgate/redis-scripts).
import type { Cluster, Redis } from "ioredis";

export interface ScriptCalls {
  /** Scripts sent since the last reset (or since counting began). */
  readonly count: number;
  reset(): void;
}

export function countScriptCalls(redis: Redis | Cluster): ScriptCalls {
  let count = 0;
  const send = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    if (command.name === "evalsha" || command.name === "eval") count++;
    return send(command, ...rest);
  }) as typeof redis.sendCommand;
  return {
    get count() {
      return count;
    },
    reset() {
      count = 0;
    },
  };
}
