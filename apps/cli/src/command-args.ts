// The arguments of a `./floodgate` command, parsed before the command reads its configuration or touches a
// store: `--help` prints the usage and exits 0; an unknown flag, a missing value or a stray word exits 2 with
// one line naming it, then the usage. A typo must never run a migration or start a system.
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";

export interface CommandSpec {
  /** Starts the error line, e.g. "[floodgate] migrate:". */
  prefix: string;
  usage: string;
  /** The command's own options; `-h, --help` is added to every command. */
  options: ParseArgsOptionsConfig;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const HELP = { help: { type: "boolean", short: "h" } } as const;

/** Prints the reason and the usage to stderr and exits 2 (a usage error). */
export function usageError(spec: CommandSpec, reason: string): never {
  process.stderr.write(`${spec.prefix} ${reason}\n\n${spec.usage}\n`);
  process.exit(2);
}

function parse(spec: CommandSpec, args: string[], allowPositionals: boolean) {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...spec.options, ...HELP }, strict: true, allowPositionals });
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) throw error;
    // Node's first sentence names the argument; the rest suggests `--`, which none of our commands takes.
    const [reason = ""] = (error as Error).message.split(". ");
    usageError(spec, reason);
  }
  if (parsed.values.help) {
    process.stdout.write(`${spec.usage}\n`);
    process.exit(0);
  }
  return parsed;
}

export function parseCommandArgs(spec: CommandSpec, args: string[] = process.argv.slice(2)): Values {
  return parse(spec, args, false).values;
}

/** For a command that takes words (a subcommand, an id): the caller checks them and calls usageError. */
export function parseCommandWords(
  spec: CommandSpec,
  args: string[] = process.argv.slice(2),
): { values: Values; words: string[] } {
  const { values, positionals } = parse(spec, args, true);
  return { values, words: positionals };
}
