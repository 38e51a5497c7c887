// The alert rules in infra/prometheus/rules, checked and unit-tested by Prometheus's own promtool (its rule
// tests in infra/prometheus/tests feed series and expect each alert to fire, or not, at given times). A missing
// promtool fails this file with how to get one, never a skip: `./floodgate test` installs Debian's package.
import { execFile } from "node:child_process";
import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RULES = "infra/prometheus/rules";
const TESTS = "infra/prometheus/tests";
const HOW_TO_GET_ONE =
  "The alert-rule tests need promtool: `./floodgate test` installs it (as root with apt-get), or install " +
  "Prometheus's tools yourself (Debian/Ubuntu: apt-get install prometheus; macOS: brew install prometheus) " +
  "or set PROMTOOL_PATH to a promtool binary.";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function promtoolPath(): string {
  const configured = process.env.PROMTOOL_PATH;
  if (configured) {
    if (!executable(configured))
      throw new Error(`PROMTOOL_PATH=${configured} is not executable. ${HOW_TO_GET_ONE}`);
    return configured;
  }
  const found = (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir) => join(dir, "promtool"))
    .find(executable);
  if (!found) throw new Error(`No promtool on PATH. ${HOW_TO_GET_ONE}`);
  return found;
}

const yamlFiles = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(".yml"))
    .map((name) => join(dir, name));

async function promtool(...args: string[]) {
  const path = promtoolPath(); // throws, saying how to get one
  try {
    const { stdout, stderr } = await promisify(execFile)(path, args, { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === "ENOENT") throw error;
    return { code: failed.code, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("Prometheus alert rules", () => {
  it("are valid rule files (promtool check rules)", async () => {
    const files = yamlFiles(RULES);
    expect(files.length).toBeGreaterThan(0);
    const { code, output } = await promtool("check", "rules", ...files);
    expect(output).toContain("SUCCESS");
    expect(code, output).toBe(0);
  });

  it("fire when they should and stay quiet otherwise (promtool test rules)", async () => {
    const files = yamlFiles(TESTS);
    expect(files.length).toBeGreaterThan(0);
    const { code, output } = await promtool("test", "rules", ...files);
    expect(code, output).toBe(0);
    expect(output).not.toContain("FAILED");
  });
});
