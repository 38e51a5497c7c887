import { luaScript } from "../lua-script.ts";

export interface EndSessionPassInput {
  /** {p}:pass:<roomId>:<userId>. */
  passesKey: string;
  ticketId: string;
}

/** end-session-pass-1.lua: a session that ended in its room stops admitting (its pass, in the user's slot). */
export const endSessionPass = luaScript({
  file: "end-session-pass-1.lua",
  keys: (input: EndSessionPassInput) => [input.passesKey],
  args: (input: EndSessionPassInput) => [input.ticketId],
  decode: (reply: number): number => reply,
});
