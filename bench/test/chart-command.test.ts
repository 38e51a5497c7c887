import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runChartCommand } from "../src/charts/chart-command.ts";
import { chartPathFor } from "../src/charts/chart-file.ts";
import { couponDropResult } from "./support/chart-fixtures.ts";
import { assertWellFormed } from "./support/svg-checks.ts";

const dir = mkdtempSync(join(tmpdir(), "bench-chart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function resultFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("bench chart", () => {
  it("writes <same name>.svg beside the result, or where --out says", () => {
    const file = resultFile("20261128T100000Z-coupon-drop.json", couponDropResult());
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect(runChartCommand([file])).toBe(0);
    expect(chartPathFor(file)).toBe(join(dir, "20261128T100000Z-coupon-drop.svg"));
    assertWellFormed(readFileSync(chartPathFor(file), "utf8"));
    const out = join(dir, "elsewhere.svg");
    expect(runChartCommand([file, "--out", out])).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(log).toHaveBeenCalledWith(`chart: ${out}`);
    log.mockRestore();
  });

  it("names the file it cannot draw and goes on with the others; exit 1", () => {
    const broken = resultFile("broken.json", "{ not json");
    const odd = resultFile("odd.json", { scenario: "payments" });
    const good = resultFile("good.json", couponDropResult());
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect(runChartCommand([broken, odd, good])).toBe(1);
    expect(error.mock.calls.map((call) => String(call[0]))).toEqual([
      expect.stringMatching(/^bench chart: .*broken\.json: not readable as JSON/),
      expect.stringMatching(/^bench chart: .*odd\.json: startedAt is missing \(a string expected\)/),
    ]);
    expect(existsSync(join(dir, "good.svg"))).toBe(true);
    error.mockRestore();
    log.mockRestore();
  });

  it("refuses bad usage with exit 2: no file, --out for several, an unknown option", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(runChartCommand([])).toBe(2);
    expect(runChartCommand(["a.json", "b.json", "--out", "c.svg"])).toBe(2);
    expect(runChartCommand(["a.json", "--width", "900"])).toBe(2);
    error.mockRestore();
  });
});
