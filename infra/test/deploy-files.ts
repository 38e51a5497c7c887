// Readers of the deploy files for the tests beside them: the Dockerfile, the image's entry point, compose, the
// k8s manifests, and what the apps say about their own health routes. No Docker engine or cluster is needed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";

export const ROOT = join(import.meta.dirname, "..", "..");
export const INFRA = join(ROOT, "infra");

export const readText = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
export function dockerfileInstructions(): { op: string; args: string }[] {
  return readText("Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [op = "", ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(" ") };
    });
}

/** The arms of a shell case statement that end in `exec node <script>` (on any line of the arm): command -> script. */
export function nodeCommands(path: string): Map<string, string> {
  const commands = new Map<string, string>();
  for (const arm of readText(path).matchAll(/^\s*([a-z]+)\)([\s\S]*?);;/gm)) {
    // Node's own options may come first (the intake's young generation).
    const script = /exec node (?:\S+ )*?(\S+\.ts)/.exec(arm[2] as string);
    if (script) commands.set(arm[1] as string, script[1] as string);
  }
  return commands;
}

/** The workspace's package folders (pnpm-workspace.yaml's `dir` and `dir/*` entries), relative to the root. */
export function workspaceDirs(): string[] {
  const patterns = parse(readText("pnpm-workspace.yaml")).packages as string[];
  return patterns.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, parent, entry.name, "package.json")))
      .map((entry) => `${parent}/${entry.name}`);
  });
}

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is checked field by field by the tests
export type Yaml = any;

/** Compose with its `<<` anchors merged, as compose reads it. */
export const compose = (): Yaml => parse(readText("infra/docker-compose.yml"), { merge: true });

export const yamlFile = (path: string): Yaml => parse(readText(path), { merge: true });

/** Every document of every YAML file in infra/k8s, with the file it came from. */
export function k8sDocuments(): { file: string; doc: Yaml }[] {
  const dir = join(INFRA, "k8s");
  return readdirSync(dir)
    .filter((file) => /\.ya?ml$/.test(file))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), "utf8")).map((document) => {
        if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
        return { file, doc: document.toJS() };
      }),
    );
}

/** `KEY=value` lines of an env file. */
export function envFile(path: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readText(path).split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) entries.set(match[1] as string, match[2] as string);
  }
  return entries;
}

/** The paths an app's Fastify routes file registers with app.get. */
export function routePaths(path: string): string[] {
  return [...readText(path).matchAll(/app\.get\(\s*"([^"]+)"/g)].map((match) => match[1] as string);
}

/** Compose interpolation (`${NAME}`, `${NAME:-default}`, `${NAME:?message}`) against the given variables. */
export function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind, rest) => {
    const found = variables[name];
    if (found !== undefined && found !== "") return found;
    if (kind === "-") return rest;
    throw new Error(`compose would stop: ${name} unset (${rest ?? "no default"})`);
  });
}
