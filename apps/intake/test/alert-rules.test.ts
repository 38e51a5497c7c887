// The alert rules in infra/prometheus/rules, checked and unit-tested by Prometheus's own promtool (the rule
// tests in infra/prometheus/tests feed series and expect each alert to fire, or not, at given times), and the
// dashboards' queries parsed by the same PromQL parser. Without promtool these fail saying how to get one.
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dashboardQueries, filesIn, REPO_ROOT, RULE_TESTS, RULES } from "./support/observability-files.ts";
import { promtool } from "./support/promtool.ts";

describe("Prometheus alert rules", () => {
  it("are valid rule files (promtool check rules)", async () => {
    const files = filesIn(RULES, ".yml");
    expect(files.length).toBeGreaterThan(0);
    const { code, output } = await promtool(REPO_ROOT, "check", "rules", ...files);
    expect(code, output).toBe(0);
    expect(output).toContain("SUCCESS");
  });

  it("fire when they should and stay quiet otherwise (promtool test rules)", async () => {
    const files = filesIn(RULE_TESTS, ".yml");
    expect(files.length).toBeGreaterThan(0);
    const { code, output } = await promtool(REPO_ROOT, "test", "rules", ...files);
    expect(code, output).toBe(0);
    expect(output).not.toContain("FAILED");
  });
});

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");

describe("Alert runbooks", () => {
  it("each runbook_url names a section of docs/operations.md, and the alert's own", () => {
    const docs = readFileSync(join(REPO_ROOT, "docs/operations.md"), "utf8");
    const anchors = new Set([...docs.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => anchorOf(heading!)));
    const links = filesIn(RULES, ".yml").flatMap((file) =>
      [
        ...readFileSync(join(REPO_ROOT, file), "utf8").matchAll(
          /- alert: (\S+)(?:(?!- alert:)[\s\S])*?runbook_url: "([^"]+)"/g,
        ),
      ].map(([, alert, url]) => ({ alert: alert!, url: url! })),
    );
    expect(links.map((link) => link.alert)).toEqual(
      expect.arrayContaining([
        "FloodgateScrapeTargetDown",
        "FloodgateShardUnreachable",
        "FloodgateIntake5xxRateHigh",
        "FloodgateLoadSheddingOn",
        "FloodgateRedisMemoryNearMax",
        "FloodgateOpenFilesNearLimit",
      ]),
    );
    for (const { alert, url } of links) {
      expect(url).toBe(`docs/operations.md#${anchorOf(alert)}`);
      expect(anchors.has(anchorOf(alert)), `docs/operations.md has no section "${alert}"`).toBe(true);
    }
  });
});

describe("Grafana dashboards", () => {
  it("query in valid PromQL (each as a recording rule for promtool check rules)", async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    // Grafana fills $__rate_interval in; JSON strings are valid YAML strings.
    const rules = queries.map((q, i) => ({
      record: `dashboard:query_${i}`,
      expr: q.expr.replaceAll("$__rate_interval", "1m"),
    }));
    const dir = await mkdtemp(join(tmpdir(), "floodgate-dashboard-"));
    try {
      const file = join(dir, "dashboard-queries.yml");
      const yaml = ["groups:", "  - name: dashboard", "    rules:"]
        .concat(rules.map((r) => `      - record: ${r.record}\n        expr: ${JSON.stringify(r.expr)}`))
        .join("\n");
      await writeFile(file, `${yaml}\n`);
      const { code, output } = await promtool(REPO_ROOT, "check", "rules", file);
      expect(code, output).toBe(0);
      expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
