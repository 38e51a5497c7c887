import { luaScript } from "../lua-script.ts";

export interface RevokePassInput {
  /** The user's passes for the room, {p}:pass:<roomId>:<userId> (includes/room-passes.lua), in the user's slot. */
  passesKey: string;
  ticketId: string;
  /** The admission's end, epoch ms; null for a ticket revoked before it was admitted. */
  expiresAt: number | null;
  /** How long an ended ticket stays readable, ms. */
  endedRetentionMs: number;
}

/**
 * revoke-pass-1.lua: revokes a room pass in the user's slot, after revoke-ticket-7.lua revoked the ticket; written
 * even when no pass was granted yet. Always answers 1: nothing to decode.
 */
export const revokePass = luaScript({
  file: "revoke-pass-1.lua",
  keys: (input: RevokePassInput) => [input.passesKey],
  args: (input: RevokePassInput) => [input.ticketId, input.expiresAt ?? "", input.endedRetentionMs],
  decode: (_reply: 1): void => {},
});
