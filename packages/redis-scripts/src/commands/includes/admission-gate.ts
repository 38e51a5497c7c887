// The block every guarded script takes first (admission-gate.lua, beside this): 3 keys and 7 arguments. The
// intake's admission control builds it (packages/queue admission-check.ts); a wrapper puts it in front.
import type { ScriptArgument } from "../../lua-script.ts";

/**
 * The gate's room argument: "0" no room guards the request, "1" a session room, "2" a one-shot room; a room
 * whose sessions end when idle adds "/<idleMs>" (roomGateArgument).
 */
export type RoomGateArgument = "0" | "1" | "2" | `${"1" | "2"}/${number}`;

/** The room argument of a room (null: none guards the request). */
export const roomGateArgument = (
  room: { oneShot: boolean; idleMs: number | null } | null,
): RoomGateArgument => {
  if (room === null) return "0";
  const kind = room.oneShot ? "2" : "1";
  return room.idleMs === null ? kind : `${kind}/${room.idleMs}`;
};

export interface AdmissionGate {
  /** User bucket, room's queueing mirror, user's room passes (without a room: the user's stream, never touched). */
  keys: readonly [string, string, string];
  /**
   * User ms per token, user burst, the room ("0" none, "1" session, "2" one-shot; "/<idleMs>" after it for a room
   * whose sessions end when idle), user id, the ticket id the token claims, the token's digest
   * (admission-token-digest.ts), "1" when its signature was verified (asked for only by a pass without a digest)
   * else "0".
   */
  args: readonly [number, number, RoomGateArgument, string, string, string, "0" | "1"];
  /**
   * The guarding room's session the request's admission token names (absent without one): an order carries it
   * in its stream message, so the session ends when the order does (the worker's room-sessions.ts). The token's
   * claims are read, not verified, by the intake: the order script writes the session only when the gate
   * admitted the token by its digest (a token the gate did not check names no session).
   */
  session?: { roomId: string; ticketId: string };
}

/** An order script's last two arguments: the session's room and ticket ("" and "" without one). */
export const sessionArgs = (gate: AdmissionGate | undefined): [string, string] =>
  gate?.session === undefined ? ["", ""] : [gate.session.roomId, gate.session.ticketId];

/** KEYS of a guarded script: the gate's 3 first, then the script's own. */
export const gateKeys = (gate: AdmissionGate, ...own: string[]): string[] => [...gate.keys, ...own];

/** ARGV of a guarded script: the gate's 7 first, then the script's own. */
export const gateArgs = (gate: AdmissionGate, ...own: ScriptArgument[]): ScriptArgument[] => [
  ...gate.args,
  ...own,
];

/**
 * What a cluster's commit step takes to consume the request's one-shot token (includes/one-shot-pass.lua), from
 * the gate its first step checked: the room's queueing mirror, the user's passes and the ticket id, all in the
 * user's slot; empty strings when the request carries no one-shot token (or no gate is given).
 */
export const oneShotCommitArgs = (gate: AdmissionGate | undefined): [string, string, string] =>
  gate?.args[2].startsWith("2") && gate.args[4] !== ""
    ? [gate.keys[1], gate.keys[2], gate.args[4]]
    : ["", "", ""];
