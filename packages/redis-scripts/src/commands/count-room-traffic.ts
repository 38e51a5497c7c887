import { luaScript } from "../lua-script.ts";
import type { RoomKeys } from "./includes/room-tickets.ts";

export interface CountRoomTrafficInput extends Pick<RoomKeys, "stateKey"> {
  /** Guarded requests counted since the last flush (> 0). */
  requests: number;
}

export interface CountRoomTrafficResult {
  /** The room's traffic in the current second (Redis TIME of the room's node), this flush included. */
  secondCount: number;
}

/** count-room-traffic-1.lua: adds an intake's count of guarded requests to a room's traffic (`auto` mode). */
export const countRoomTraffic = luaScript({
  file: "count-room-traffic-1.lua",
  keys: (input: CountRoomTrafficInput) => [input.stateKey],
  args: (input: CountRoomTrafficInput) => [input.requests],
  decode: (reply: number): CountRoomTrafficResult => ({ secondCount: reply }),
});
