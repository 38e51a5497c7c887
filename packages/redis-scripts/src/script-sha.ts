// The SHA1 a script's calls go out under (EVALSHA, as defineScripts registers it), for whoever needs to tell
// that script's calls from the rest in a connection's bytes: a test's TCP proxy holding them, for one.
import { createHash } from "node:crypto";
import { scriptSource } from "./define-scripts.ts";
import type { LuaScript } from "./lua-script.ts";

export function scriptSha(script: Pick<LuaScript<unknown, unknown>, "file">): string {
  return createHash("sha1").update(scriptSource(script.file)).digest("hex");
}
