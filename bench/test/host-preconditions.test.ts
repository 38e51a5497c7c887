// Making test hosts needs root and iproute2: without them the caller must stop with what is missing named. Each
// case runs the check in a child process that lacks one thing (a user other than root, a PATH without `ip`).
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { missingForHosts } from "../src/faults/hosts/host-preconditions.ts";

const PRECONDITIONS = fileURLToPath(new URL("../src/faults/hosts/host-preconditions.ts", import.meta.url));
const script = `import(${JSON.stringify(PRECONDITIONS)}).then((m) => console.log(JSON.stringify(m.missingForHosts())))`;
const isRoot = process.getuid?.() === 0;

function missingIn(command: string, args: string[], env: NodeJS.ProcessEnv): string[] {
  return JSON.parse(execFileSync(command, args, { encoding: "utf8", env }).trim().split("\n").at(-1)!);
}

describe("test host preconditions", () => {
  it("name root when the process is not root", () => {
    const missing = isRoot
      ? missingIn("runuser", ["-u", "nobody", "--", process.execPath, "-e", script], process.env)
      : missingForHosts();
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/^root \(this process runs as uid \d+/);
  });

  it("name iproute2 when `ip` and `tc` are not on PATH", () => {
    const missing = isRoot ? missingIn(process.execPath, ["-e", script], { PATH: "/nonexistent" }) : [];
    // Not root: the first check already stops it (the case above), so there is nothing more to see here.
    if (isRoot) expect(missing.join("; ")).toMatch(/`ip` .*not on PATH.*`tc` .*not on PATH/);
    else expect(missingForHosts()[0]).toMatch(/^root/);
  });
});
