// Command-line options of a scenario, declared as data so parsing, defaults and --help come from one list.
// Errors are thrown as OptionError with a message meant for the person who typed the command.

export type OptionSpec =
  | { name: string; kind: "flag"; help: string }
  | { name: string; kind: "int"; help: string; default: number; min: number; max: number }
  /** `--drain` alone takes the default; `--drain 5000` or `--drain=5000` sets it; absent means null. */
  | { name: string; kind: "optional-int"; help: string; default: number; min: number; max: number }
  /** One word of `choices` (`--auth compare` or `--auth=compare`); absent means null (the scenario's default). */
  | { name: string; kind: "choice"; help: string; choices: readonly string[] }
  /** Comma-separated words of `choices` (`--faults a,b`), kept as given; absent means null (all, in order). */
  | { name: string; kind: "list"; help: string; choices: readonly string[] }
  /** One word of `choices` per occurrence (`--peer raw --peer bullmq`), kept comma-separated in the order given;
   * absent means null. */
  | { name: string; kind: "repeated"; help: string; choices: readonly string[] }
  /** A folder or file (`--compare-checkout ../old`), kept as given; absent means null. */
  | { name: string; kind: "path"; help: string };

export type OptionValues = Record<string, number | boolean | string | null>;

export class OptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OptionError";
  }
}

function parseInteger(spec: { name: string; min: number; max: number }, text: string): number {
  if (!/^\d+$/.test(text))
    throw new OptionError(`--${spec.name} needs a whole number, got ${JSON.stringify(text)}`);
  const value = Number(text);
  if (value < spec.min || value > spec.max) {
    throw new OptionError(`--${spec.name} must be between ${spec.min} and ${spec.max}, got ${value}`);
  }
  return value;
}

export function parseOptions(specs: readonly OptionSpec[], args: readonly string[]): OptionValues {
  const values: OptionValues = {};
  for (const spec of specs)
    values[spec.name] = spec.kind === "flag" ? false : spec.kind === "int" ? spec.default : null;
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(arg);
    if (!match)
      throw new OptionError(`unexpected argument ${JSON.stringify(arg)} (options look like --rate 2000)`);
    const [, name = "", inline] = match;
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) {
      throw new OptionError(
        `unknown option --${name} (known: ${specs.map((s) => `--${s.name}`).join(", ")})`,
      );
    }
    if (seen.has(name) && spec.kind !== "repeated") throw new OptionError(`--${name} is given twice`);
    seen.add(name);
    if (spec.kind === "flag") {
      if (inline !== undefined) throw new OptionError(`--${name} takes no value`);
      values[name] = true;
    } else if (spec.kind === "int") {
      const text = inline ?? args[i + 1];
      if (text === undefined || (inline === undefined && text.startsWith("--"))) {
        throw new OptionError(`--${name} needs a value, e.g. --${name} ${spec.default}`);
      }
      if (inline === undefined) i++;
      values[name] = parseInteger(spec, text);
    } else if (spec.kind === "choice") {
      const text = inline ?? args[i + 1];
      if (text === undefined || (inline === undefined && text.startsWith("--"))) {
        throw new OptionError(`--${name} needs one of ${spec.choices.join(", ")}`);
      }
      if (inline === undefined) i++;
      if (!spec.choices.includes(text)) {
        throw new OptionError(
          `--${name} must be one of ${spec.choices.join(", ")}, got ${JSON.stringify(text)}`,
        );
      }
      values[name] = text;
    } else if (spec.kind === "list") {
      const text = inline ?? args[i + 1];
      if (text === undefined || (inline === undefined && text.startsWith("--"))) {
        throw new OptionError(`--${name} needs a comma-separated list of ${spec.choices.join(", ")}`);
      }
      if (inline === undefined) i++;
      const unknown = text.split(",").filter((word) => !spec.choices.includes(word));
      if (unknown.length > 0) {
        throw new OptionError(
          `--${name}: unknown ${unknown.map((word) => JSON.stringify(word)).join(", ")} (known: ${spec.choices.join(", ")})`,
        );
      }
      values[name] = text;
    } else if (spec.kind === "repeated") {
      const text = inline ?? args[i + 1];
      if (text === undefined || (inline === undefined && text.startsWith("--"))) {
        throw new OptionError(`--${name} needs one of ${spec.choices.join(", ")}`);
      }
      if (inline === undefined) i++;
      if (!spec.choices.includes(text)) {
        throw new OptionError(
          `--${name} must be one of ${spec.choices.join(", ")}, got ${JSON.stringify(text)}`,
        );
      }
      const given = typeof values[name] === "string" ? (values[name] as string).split(",") : [];
      if (given.includes(text)) throw new OptionError(`--${name} ${text} is given twice`);
      values[name] = [...given, text].join(",");
    } else if (spec.kind === "path") {
      const text = inline ?? args[i + 1];
      if (text === undefined || text === "" || (inline === undefined && text.startsWith("--"))) {
        throw new OptionError(`--${name} needs a path, e.g. --${name} ../floodgate-main`);
      }
      if (inline === undefined) i++;
      values[name] = text;
    } else {
      const next = args[i + 1];
      if (inline !== undefined) values[name] = parseInteger(spec, inline);
      else if (next !== undefined && /^\d/.test(next)) {
        values[name] = parseInteger(spec, next);
        i++;
      } else values[name] = spec.default;
    }
  }
  return values;
}

export function describeOptions(specs: readonly OptionSpec[]): string {
  return specs
    .map((spec) => {
      const usage =
        spec.kind === "flag"
          ? `--${spec.name}`
          : spec.kind === "int"
            ? `--${spec.name} N`
            : spec.kind === "choice"
              ? `--${spec.name} ${spec.choices.join("|")}`
              : spec.kind === "list"
                ? `--${spec.name} a,b,...`
                : spec.kind === "repeated"
                  ? `--${spec.name} ${spec.choices.join("|")} ...`
                  : spec.kind === "path"
                    ? `--${spec.name} DIR`
                    : `--${spec.name} [N]`;
      const fallback =
        spec.kind === "flag" || spec.kind === "choice" || spec.kind === "repeated" || spec.kind === "path"
          ? ""
          : spec.kind === "list"
            ? ` (default all: ${spec.choices.join(",")})`
            : ` (default ${spec.default})`;
      return `  ${usage.padEnd(22)} ${spec.help}${fallback}`;
    })
    .join("\n");
}
