// The documents quote bench results by file name; the results folder keeps only the files they quote. Both
// directions are checked, so a figure cannot point at a file that is gone, nor a file linger that no document
// names (measurement history lives in git). Also holds README.md to the size of a user's manual (issue 20).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../..", import.meta.url).pathname;
const RESULTS = "bench/results";
const README_LIMIT_BYTES = 25_000;

/** The documents that may quote a result: the READMEs a user reads and everything under docs/. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", "bench/README.md", "infra/README.md", ...docs];
}

// A result file's name, as `bench run` writes it: <UTC timestamp>-<scenario>.<json|log|svg>. Templates such as
// `<timestamp>-payments.json` do not match.
const RESULT_NAME = /\b\d{8}T\d{6}Z-[a-z0-9-]+\.(?:json|log|svg)\b/g;

function namedResults(): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const doc of documents()) {
    for (const [name] of readFileSync(join(ROOT, doc), "utf8").matchAll(RESULT_NAME)) {
      named.set(name, [...(named.get(name) ?? []), doc]);
    }
  }
  return named;
}

/** The result files on this branch: committed or staged (a local run's unstaged output does not count). */
function committedResults(): string[] {
  const listed = execFileSync("git", ["ls-files", "--", RESULTS], { cwd: ROOT, encoding: "utf8" });
  return listed
    .split("\n")
    .filter((path) => path !== "")
    .map((path) => path.slice(RESULTS.length + 1))
    .filter((name) => !name.includes("/"));
}

describe("bench result files and the documents that quote them", () => {
  it("every result file a document names is in bench/results/", () => {
    const present = new Set(committedResults());
    const missing = [...namedResults()]
      .filter(([name]) => !present.has(name))
      .map(([name, docs]) => `${name} (named in ${docs.join(", ")})`);
    expect(missing).toEqual([]);
  });

  it("every file in bench/results/ is named by a document", () => {
    const named = namedResults();
    const unnamed = committedResults().filter((name) => !named.has(name));
    expect(unnamed).toEqual([]);
  });

  it(`README.md stays under ${README_LIMIT_BYTES} bytes`, () => {
    expect(statSync(join(ROOT, "README.md")).size).toBeLessThan(README_LIMIT_BYTES);
  });
});
