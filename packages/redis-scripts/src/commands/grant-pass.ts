import { luaScript } from "../lua-script.ts";

export interface GrantPassInput {
  /** The user's passes for the room, {p}:pass:<roomId>:<userId> (includes/room-passes.lua), in the user's slot. */
  passesKey: string;
  ticketId: string;
  /** The admission's end, epoch ms (the ticket's expiresAt). */
  expiresAt: number;
  /** How long an ended ticket stays readable, ms (the room's retention of ended tickets). */
  endedRetentionMs: number;
}

export interface GrantPassResult {
  /** The pass holds the admission; false: the ticket's pass was revoked first (hand out no token). */
  granted: boolean;
}

/** grant-pass-1.lua: a room pass in the user's slot, granted before any admission token for the ticket leaves. */
export const grantPass = luaScript({
  file: "grant-pass-1.lua",
  keys: (input: GrantPassInput) => [input.passesKey],
  args: (input: GrantPassInput) => [input.ticketId, input.expiresAt, input.endedRetentionMs],
  decode: (reply: number): GrantPassResult => ({ granted: reply === 1 }),
});
