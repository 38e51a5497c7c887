// The root Dockerfile and the image's entry point, read as text: never built here (no Docker engine).
import { accessSync, constants, existsSync } from "node:fs";
import { join } from "node:path";
import { knownEnvironmentVariables, loadConfig } from "@floodgate/config";
import { describe, expect, it } from "vitest";
import { dockerfileInstructions, nodeCommands, ROOT, readText, workspaceDirs } from "./deploy-files.ts";

const instructions = dockerfileInstructions();
const args = (op: string) => instructions.filter((i) => i.op === op).map((i) => i.args);
const ENTRYPOINT = "infra/docker/entrypoint.sh";
const ASSEMBLE = "infra/docker/assemble-runtime.sh";

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

  it("builds what turbo builds and copies no local dist/", () => {
    expect(args("RUN").some((run) => run.includes(`${ASSEMBLE} /runtime`))).toBe(true);
    if (JSON.parse(readText("turbo.json")).tasks.build) {
      expect(readText(ASSEMBLE)).toMatch(/^pnpm exec turbo run build\b/m);
    }
    expect(readText(".dockerignore")).toMatch(/^\*\*\/dist$/m);
  });

  it("runs from the assembled layout alone, as the user node, with a HEALTHCHECK the layout carries", () => {
    const stages = readText("Dockerfile").split(/^FROM /m);
    const runtime = stages.at(-1) as string;
    expect(runtime).toMatch(/ AS runtime\n/);
    const copies = [...runtime.matchAll(/^COPY (.+)$/gm)].map((match) => match[1]);
    expect(copies).toEqual(["--from=build /runtime /app"]);
    expect(runtime).not.toMatch(/^RUN /m);
    const healthcheck = args("HEALTHCHECK");
    expect(healthcheck).toHaveLength(1);
    expect(healthcheck[0]).toMatch(/ CMD \["node", "\/app\/infra\/docker\/healthcheck\.ts"\]$/);
    expect(readText(ASSEMBLE)).toMatch(/^cp .*infra\/docker\/healthcheck\.ts .*"\$out\/infra\/docker\/"$/m);
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

  it("gives the intake the young generation start gives it, by default the configuration's", () => {
    const fallback = /INTAKE_SEMI_SPACE_MB:-(\d+)/.exec(readText(ENTRYPOINT));
    expect(Number(fallback?.[1])).toBe(loadConfig({}).intakeSemiSpaceMb);
    expect(readText(ENTRYPOINT)).toMatch(/intake\) exec node \$intake_options apps\/intake\/src\/server\.ts/);
  });

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
