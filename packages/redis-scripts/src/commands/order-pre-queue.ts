import { luaScript } from "../lua-script.ts";
import type { RoomKeys } from "./includes/room-tickets.ts";

export interface OrderPreQueueInput
  extends Pick<RoomKeys, "stateKey" | "orderKey" | "proofKey" | "proofTicketsKey"> {
  /** The leader's epoch: a room refuses one below the highest it has seen. */
  leaderEpoch: number;
  /** The closed round, as the room's state holds it (shuffleRound). */
  round: string;
  /** hex SHA-256 of the round's ticket ids, sorted, joined by "\n". */
  listHash: string;
  /** How many tickets the whole list has. */
  size: number;
  /** Where this page starts in the order. */
  offset: number;
  /** This page of the order. */
  ordered: readonly string[];
  /** The same page of the list sorted by id (the proof's `tickets`). */
  sorted: readonly string[];
}

export type OrderPreQueueResult =
  /** A page taken; `written`: the order's length now. */
  | { result: "written"; written: number }
  /** The last page taken: the proof is published and the round moves from the next tick. */
  | { result: "published" }
  /** A later leader epoch has ticked the room: nothing written. */
  | { result: "deposed"; roomEpoch: number }
  /** The round awaits no order (published already, or another round closed): nothing written. */
  | { result: "not_awaited" }
  /** The page does not continue the written order (another list, or another place): start again at 0. */
  | { result: "out_of_step"; written: number }
  /** The round has no seed yet: mint one, then write. */
  | { result: "no_seed" };

type OrderPreQueueReply = [1 | 2 | -1 | -3, number] | [-2] | [-4];

/** order-pre-queue-4.lua: one page of a closed pre-queue round's order; the last publishes the proof. */
export const orderPreQueue = luaScript({
  file: "order-pre-queue-4.lua",
  keys: (input: OrderPreQueueInput) => [
    input.stateKey,
    input.orderKey,
    input.proofKey,
    input.proofTicketsKey,
  ],
  args: (input: OrderPreQueueInput) => {
    if (input.ordered.length !== input.sorted.length) throw new Error("a page's two lists differ in length");
    return [
      input.leaderEpoch,
      input.round,
      input.listHash,
      input.size,
      input.offset,
      input.ordered.length,
      ...input.ordered,
      ...input.sorted,
    ];
  },
  decode: (reply: OrderPreQueueReply): OrderPreQueueResult => {
    const code = Number(reply[0]);
    if (code === 1) return { result: "written", written: Number(reply[1]) };
    if (code === 2) return { result: "published" };
    if (code === -1) return { result: "deposed", roomEpoch: Number(reply[1]) };
    if (code === -3) return { result: "out_of_step", written: Number(reply[1]) };
    if (code === -4) return { result: "no_seed" };
    return { result: "not_awaited" };
  },
});
