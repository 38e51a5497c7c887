// The block every guarded script takes first (admission-gate.lua, beside this): 3 keys and 5 arguments. The
// intake's admission control builds it (packages/queue admission-check.ts); a wrapper puts it in front.
import type { ScriptArgument } from "../../lua-script.ts";

export interface AdmissionGate {
  /** User bucket, room's queueing mirror, user's room passes (without a room: the user's stream, never touched). */
  keys: readonly [string, string, string];
  /** User ms per token, user burst, "1"/"0" room gate, user id, ticket id. */
  args: readonly [number, number, "0" | "1", string, string];
}

/** KEYS of a guarded script: the gate's 3 first, then the script's own. */
export const gateKeys = (gate: AdmissionGate, ...own: string[]): string[] => [...gate.keys, ...own];

/** ARGV of a guarded script: the gate's 5 first, then the script's own. */
export const gateArgs = (gate: AdmissionGate, ...own: ScriptArgument[]): ScriptArgument[] => [
  ...gate.args,
  ...own,
];
