// The root Dockerfile and the image's entry point, read as text: never built here (no Docker engine).
import { accessSync, constants, existsSync } from "node:fs";
import { join } from "node:path";
import { knownEnvironmentVariables } from "@floodgate/config";
import { describe, expect, it } from "vitest";
import { dockerfileInstructions, nodeCommands, ROOT, readText, workspaceDirs } from "./deploy-files.ts";

const instructions = dockerfileInstructions();
const args = (op: string) => instructions.filter((i) => i.op === op).map((i) => i.args);
const ENTRYPOINT = "infra/docker/entrypoint.sh";

describe("Dockerfile", () => {
  it("is multi-stage and runs as a user other than root", () => {
    expect(args("FROM").length).toBeGreaterThanOrEqual(2);
    const users = args("USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it("installs the pnpm of package.json's packageManager, from the lockfile", () => {
    const pinned = JSON.parse(readText("package.json")).packageManager as string;
    expect(args("RUN").some((run) => run.includes(`npm install -g ${pinned}`))).toBe(true);
    expect(args("RUN").some((run) => run.includes("pnpm install --frozen-lockfile"))).toBe(true);
  });

  it("builds what turbo builds (the intake serves the checkout SDK's dist/) and copies no local dist/", () => {
    if (JSON.parse(readText("turbo.json")).tasks.build) {
      expect(args("RUN").some((run) => run.includes("pnpm exec turbo run build"))).toBe(true);
    }
    expect(readText(".dockerignore")).toMatch(/^\*\*\/dist$/m);
  });

  it("copies the manifest of every workspace package before installing (packages/ whole)", () => {
    const copied = args("COPY").join("\n");
    expect(copied).toContain("packages/ packages/");
    const dirs = workspaceDirs().filter((dir) => !dir.startsWith("packages/"));
    expect(dirs).toContain("apps/intake");
    for (const dir of dirs) expect(copied, dir).toContain(`${dir}/package.json ${dir}/`);
  });

  it("sets only environment variables the config reader knows", () => {
    const known = knownEnvironmentVariables();
    const names = args("ENV").flatMap((env) => [...env.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]));
    for (const name of names) expect(known).toContain(name);
  });

  it("enters through the entry point script, an executable file, and starts the intake by default", () => {
    expect(args("ENTRYPOINT")).toEqual([`["/app/${ENTRYPOINT}"]`]);
    accessSync(join(ROOT, ENTRYPOINT), constants.X_OK);
    expect(args("CMD")).toEqual(['["intake"]']);
  });
});

describe("the image's entry point", () => {
  const commands = nodeCommands(ENTRYPOINT);

  it("runs each process from a script that exists", () => {
    expect([...commands.keys()].sort()).toEqual(["dlq", "intake", "migrate", "reconcile", "start", "worker"]);
    for (const script of commands.values()) expect(existsSync(join(ROOT, script)), script).toBe(true);
  });

  it("runs the same scripts as ./floodgate for the commands both have", () => {
    const wrapper = nodeCommands("floodgate");
    for (const command of ["start", "migrate", "reconcile", "dlq"]) {
      expect(commands.get(command)).toBe(wrapper.get(command));
    }
  });
});
