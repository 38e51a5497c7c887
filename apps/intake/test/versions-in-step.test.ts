// One version for the whole project: the root package.json states it; every workspace package (the published
// checkout SDK and @floodgate/node among them), the OpenAPI document's info.version and CHANGELOG.md's newest
// release say the same, so a bump that misses one fails here.
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { OPENAPI_BASE } from "../src/openapi/openapi-document.ts";

const root = new URL("../../../", import.meta.url);

async function manifestAt(dir: string): Promise<{ name: string; version?: string }> {
  return JSON.parse(await readFile(new URL(`${dir}package.json`, root), "utf8"));
}

/** The folders pnpm-workspace.yaml's `packages:` list names, its `dir/*` patterns expanded. */
async function workspaceDirs(): Promise<string[]> {
  const yaml = await readFile(new URL("pnpm-workspace.yaml", root), "utf8");
  const block = yaml.split(/^packages:\n/m)[1]?.split(/^\S/m)[0] ?? "";
  const patterns = [...block.matchAll(/^\s+-\s+["']?([^"'\s]+)["']?\s*$/gm)].map((match) => match[1] ?? "");
  const dirs: string[] = [];
  for (const pattern of patterns) {
    if (!pattern.endsWith("/*")) {
      dirs.push(`${pattern}/`);
      continue;
    }
    const parent = pattern.slice(0, -1);
    const entries = await readdir(new URL(parent, root), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.isDirectory()) dirs.push(`${parent}${entry.name}/`);
    }
  }
  return dirs;
}

describe("versions in step", () => {
  it("the root package.json states a semantic version", async () => {
    const { version } = await manifestAt("");
    expect(version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });

  it("every workspace package carries the root's version", async () => {
    const { version } = await manifestAt("");
    const dirs = await workspaceDirs();
    // The published ones at least, so a workspace list this test misreads cannot pass as empty.
    expect(dirs).toEqual(
      expect.arrayContaining(["packages/checkout-sdk/", "packages/node/", "apps/intake/"]),
    );
    const versions = await Promise.all(
      dirs.map(async (dir) => {
        const manifest = await manifestAt(dir);
        return [manifest.name, manifest.version] as const;
      }),
    );
    expect(versions.filter(([, packageVersion]) => packageVersion !== version)).toEqual([]);
  });

  it("the OpenAPI document's info.version is the root's version", async () => {
    const { version } = await manifestAt("");
    expect(OPENAPI_BASE?.info?.version).toBe(version);
  });

  it("CHANGELOG.md's newest release is the root's version, under [Unreleased]", async () => {
    const { version } = await manifestAt("");
    const changelog = await readFile(new URL("CHANGELOG.md", root), "utf8");
    const releases = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((match) => match[1]);
    expect(releases.slice(0, 2)).toEqual(["Unreleased", version]);
  });
});
