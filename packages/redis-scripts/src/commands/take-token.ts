import { luaScript } from "../lua-script.ts";

export interface TakeTokenInput {
  /** The client address's bucket, {ip-<ip>}:rl:<class>. */
  bucketKey: string;
  /** ms between tokens (> 0). */
  intervalMs: number;
  burst: number;
}

export interface TakeTokenResult {
  /** A token was there and is taken; false: the bucket was empty (the request is charged to it anyway). */
  taken: boolean;
  remaining: number;
  /** ms until the bucket is full again. */
  resetMs: number;
}

/** take-token-1.lua: one token from a client address's bucket, the side command beside a guarded script. */
export const takeToken = luaScript({
  file: "take-token-1.lua",
  keys: (input: TakeTokenInput) => [input.bucketKey],
  args: (input: TakeTokenInput) => [input.intervalMs, input.burst],
  decode: ([taken, remaining, resetMs]: [number, number, number]): TakeTokenResult => ({
    taken: taken === 1,
    remaining,
    resetMs,
  }),
});
