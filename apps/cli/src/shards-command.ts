// `./floodgate shards` lists the shards (URL, buckets owned, rows, size); `./floodgate shards add <url>` creates
// and migrates a new shard and moves buckets to it while the system runs (shards/bucket-mover.ts). Exit 0 done,
// 1 failed (a rerun resumes a move that stopped), 2 usage error, 78 configuration error.
import { parseCommandArgs } from "./command-args.ts";

const USAGE = `Usage: ./floodgate shards [list]
       ./floodgate shards add <url> [--buckets N] [--dry-run]

list (the default) prints each shard of SHARD_URLS: its URL (password hidden), the buckets the global
database's shard map gives it, its rows and its size.

add creates and migrates the shard database at <url> (its identity: this deployment, the next index, or its
index if SHARD_URLS lists it already), then moves buckets to it while intake and workers run: each bucket is
paused (its operations wait in the streams), its rows are copied and verified, the map switches to the new
shard, and the rows left on the old shard are deleted. A move that stopped (a crash) is resumed by the next run.
The processes must know the new shard's URL before its buckets move: list it last in SHARD_URLS and restart
them (a shard that owns no bucket yet is fine), then run add.

Options:
  --buckets N  how many buckets the new shard is to own (default: its fair share, 1024 / shards owning
               buckets); buckets it owns already count, so a rerun moves no more
  --dry-run    print the plan; create, migrate and move nothing
  -h, --help   print this text and exit

Environment: DATABASE_URL, SHARD_URLS; see docs/configuration.md. Exit status: 0 done, 1 failed (rerun to
resume), 2 usage error, 78 configuration error.`;

const PREFIX = "[shards]";
const argv = process.argv.slice(2);
const positional = () => (argv[0] !== undefined && !argv[0].startsWith("-") ? argv.shift() : undefined);
const subcommand = positional() ?? "list";
const url = subcommand === "add" ? positional() : undefined;

function usageError(message: string): never {
  process.stderr.write(`${PREFIX} ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

const args = parseCommandArgs(
  {
    prefix: PREFIX,
    usage: USAGE,
    options: subcommand === "add" ? { buckets: { type: "string" }, "dry-run": { type: "boolean" } } : {},
  },
  argv,
);
if (subcommand !== "list" && subcommand !== "add") usageError(`unknown subcommand '${subcommand}'`);
if (subcommand === "add" && !url) usageError("add needs the new shard's database URL");
let buckets: number | undefined;
if (args.buckets !== undefined) {
  buckets = Number(args.buckets);
  if (!Number.isInteger(buckets) || buckets < 1)
    usageError(`--buckets must be a positive integer, got ${args.buckets}`);
}

// Imported only once the arguments parsed: the configuration is read (and checked) at import.
const { config } = await import("./env.ts");
const out = (line: string) => process.stdout.write(`${PREFIX} ${line}\n`);
try {
  if (subcommand === "list") {
    const { listShards } = await import("./shards/list-shards.ts");
    for (const line of await listShards(config.databaseUrl, config.shardUrls)) out(line);
  } else {
    const { addShard } = await import("./shards/add-shard.ts");
    const code = await addShard(config, { url: url!, buckets, dryRun: args["dry-run"] === true }, out);
    process.exit(code);
  }
} catch (error) {
  process.stderr.write(`${PREFIX} ${subcommand} failed: ${(error as Error).message}\n`);
  process.exit(1);
}
