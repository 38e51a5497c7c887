// The observability kit's files as its tests read them: every PromQL expression of the Grafana dashboards and
// the Prometheus rules, and the metric names an expression reads.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const DASHBOARDS = "infra/grafana/dashboards";
export const RULES = "infra/prometheus/rules";
export const RULE_TESTS = "infra/prometheus/tests";

/** The files of a repository folder with this ending, as paths from the repository root. */
export const filesIn = (dir: string, ending: string) =>
  readdirSync(join(REPO_ROOT, dir))
    .filter((name) => name.endsWith(ending))
    .map((name) => join(dir, name));

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Each dashboard query: the file, the panel's title and the expression. */
export function dashboardQueries(): { file: string; panel: string; expr: string }[] {
  return filesIn(DASHBOARDS, ".json").flatMap((file) => {
    const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, file), "utf8")) as Panel;
    const all = (panels: Panel[] = []): Panel[] => panels.flatMap((p) => [p, ...all(p.panels)]);
    return all(dashboard.panels).flatMap((panel) =>
      (panel.targets ?? []).flatMap((t) =>
        t.expr ? [{ file, panel: panel.title ?? "", expr: t.expr }] : [],
      ),
    );
  });
}

/** Each rule's `expr:`, inline or a `|` block (the rule files keep to these two forms). */
export function ruleExpressions(): { file: string; expr: string }[] {
  return filesIn(RULES, ".yml").flatMap((file) => {
    const lines = readFileSync(join(REPO_ROOT, file), "utf8").split("\n");
    const found: { file: string; expr: string }[] = [];
    lines.forEach((line, i) => {
      const match = /^(\s*)expr:\s*(.*)$/.exec(line);
      if (!match) return;
      const [, indent = "", value = ""] = match;
      if (value !== "|") {
        found.push({ file, expr: value });
        return;
      }
      const block: string[] = [];
      for (let j = i + 1; j < lines.length; j++) {
        const next = lines[j]!;
        if (next.trim() !== "" && next.search(/\S/) <= indent.length) break;
        block.push(next.trim());
      }
      found.push({ file, expr: block.join(" ").trim() });
    });
    return found;
  });
}

const NOT_METRICS = new Set(["and", "or", "unless", "bool", "offset", "inf", "nan"]);

/** The metric names an expression reads: what is left once strings, label sets, ranges, groupings and calls go. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  const names = [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!);
  return [...new Set(names.filter((name) => !NOT_METRICS.has(name.toLowerCase())))];
}
