import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INTAKE_LISTEN_BACKLOG } from "@floodgate/config";
import { describe, expect, it } from "vitest";
import { backlogCapWarning, readSomaxconn } from "../src/listen-backlog.ts";

describe("backlogCapWarning", () => {
  it("names the cap and the sysctl that lifts it when the kernel grants less than asked", () => {
    const warning = backlogCapWarning(4096);
    expect(warning).toContain("net.core.somaxconn is 4096");
    expect(warning).toContain(`sysctl -w net.core.somaxconn=${INTAKE_LISTEN_BACKLOG}`);
  });

  it("says nothing when the backlog is granted or the cap is unknown", () => {
    expect(backlogCapWarning(INTAKE_LISTEN_BACKLOG)).toBeNull();
    expect(backlogCapWarning(65_535)).toBeNull();
    expect(backlogCapWarning(null)).toBeNull();
  });
});

describe("readSomaxconn", () => {
  it("reads the number from the file, and null when there is none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "somaxconn-"));
    await writeFile(join(dir, "somaxconn"), "4096\n");
    expect(await readSomaxconn(join(dir, "somaxconn"))).toBe(4096);
    expect(await readSomaxconn(join(dir, "missing"))).toBeNull();
  });
});
