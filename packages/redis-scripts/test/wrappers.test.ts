// Every Lua script has exactly one typed wrapper, in the file beside it, and callers reach the scripts through
// the package's index: a script added without a wrapper, or a wrapper naming a file that is gone, fails here.
import { existsSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as scripts from "../src/index.ts";
import { type LuaScript, luaScript } from "../src/lua-script.ts";

const COMMANDS = new URL("../src/commands/", import.meta.url);
const luaFiles = readdirSync(COMMANDS).filter((file) => file.endsWith(".lua"));
const wrappers = (Object.values(scripts) as unknown[]).filter(
  (value): value is LuaScript<unknown, unknown> =>
    typeof value === "object" && value !== null && "file" in value && "command" in value,
);

describe("the typed wrappers", () => {
  it("wrap every script once, and nothing else", () => {
    expect(luaFiles.length).toBeGreaterThan(0);
    expect(wrappers.map((wrapper) => wrapper.file).sort()).toEqual([...luaFiles].sort());
  });

  it("each live beside its script, named after it", () => {
    const missing = luaFiles
      .map((file) => file.replace(/-(\d+|n)\.lua$/, ".ts"))
      .filter((wrapper) => !existsSync(new URL(wrapper, COMMANDS)));
    expect(missing).toEqual([]);
  });

  it("refuse a call whose number of keys is not the script's, before anything is sent", () => {
    const wrong = luaScript({
      file: "take-token-1.lua",
      keys: (input: { a: string; b: string }) => [input.a, input.b],
      args: () => [1, 2],
      decode: (reply: unknown) => reply,
    });
    expect(() => wrong.argv({ a: "x", b: "y" })).toThrow("take-token-1.lua takes 1 keys, was given 2");
  });

  it("put the number of keys first for a script that takes any number", () => {
    const variable = luaScript({
      file: "finish-operations-n.lua",
      keys: (input: { keys: string[] }) => input.keys,
      args: () => ["arg"],
      decode: (reply: unknown) => reply,
    });
    expect(variable.argv({ keys: ["k1", "k2", "k3"] })).toEqual([3, "k1", "k2", "k3", "arg"]);
  });

  it("say which script is missing when the connection was not made with defineScripts", async () => {
    const [first] = wrappers;
    await expect(first!.run({} as never, {} as never)).rejects.toThrow(
      `${first!.file} is not defined on this connection`,
    );
  });
});
