import { luaScript } from "../lua-script.ts";

export interface TrimAcknowledgedInput {
  /** {p}:ops, a partition's stream. */
  streamKey: string;
  /** The consumer group whose pending and delivered entries bound the trim. */
  group: string;
}

export interface TrimAcknowledgedResult {
  /** Entries removed (0 when the stream or the group does not exist, or nothing was delivered yet). */
  removed: number;
}

/** trim-acknowledged-1.lua: drops a stream's entries the group has delivered and acknowledged, never further. */
export const trimAcknowledged = luaScript({
  file: "trim-acknowledged-1.lua",
  keys: (input: TrimAcknowledgedInput) => [input.streamKey],
  args: (input: TrimAcknowledgedInput) => [input.group],
  decode: (removed: number): TrimAcknowledgedResult => ({ removed: Number(removed) }),
});
