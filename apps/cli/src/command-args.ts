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

const HELP = { help: { type: "boolean", short: "h" } } as const;

export function parseCommandArgs(
  spec: CommandSpec,
  args: string[] = process.argv.slice(2),
): Record<string, string | boolean | (string | boolean)[] | undefined> {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { ...spec.options, ...HELP },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) throw error;
    // Node's first sentence names the argument; the rest suggests `--`, which none of our commands takes.
    const [reason = ""] = (error as Error).message.split(". ");
    process.stderr.write(`${spec.prefix} ${reason}\n\n${spec.usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${spec.usage}\n`);
    process.exit(0);
  }
  return values;
}
