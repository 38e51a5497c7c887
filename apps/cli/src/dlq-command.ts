// `./floodgate dlq list|show|replay|drop`: read and settle the dead-letter stream, where the workers put the
// messages that failed MAX_DELIVERIES times for a reason of their own. Exit 0 done, 1 nothing done or not all
// (no such dead letter, a replay refused, Redis out of reach), 2 usage error, 78 configuration error.
import { parseCommandWords, usageError } from "./command-args.ts";

const USAGE = `Usage: ./floodgate dlq <list|show|replay|drop> [id] [options]

Reads the dead-letter stream (<REDIS_PREFIX>{dlq}:dead-letters): the messages the workers gave up on
after MAX_DELIVERIES failed deliveries for a reason of their own, each with its operation marked failed
(dead_lettered). Entries a previous release left in <REDIS_PREFIX>dead-letters are moved there first.

  list [--json]            one row per dead letter, oldest first: id, kind, user, reason, when it was
                           accepted and when it last failed (the worker records no time for earlier
                           deliveries); --json: every field, the message decoded
  show <id> [--json]       everything about one, the status Redis holds and the message pretty-printed
  replay <id> | --all      back to its partition stream with its original operation id (its shard applies
                           an id once, so a replay can never apply it twice) and its status pending again
                           (written anew if it had expired), so GET and the status WebSocket see the
                           outcome when a worker applies it. Fix the cause first, or it comes back.
                           Refused for an order (its stock was given back when it was dead-lettered; the
                           shopper orders again) and for a message that does not decode.
  drop <id> | --all --yes  delete it for good; its status stays failed (dead_lettered). --all needs --yes.

<id> is the operation id (pay_..., as list shows) or a dead-letter entry id (1764000000000-0). Two
operators replaying or dropping the same dead letter at once settle it once: the second is told so.

Options:
  --json       list, show: JSON on stdout
  --all        replay, drop: every dead letter (a progress line on stderr every 100 when there are more)
  --yes        drop --all: confirm
  -h, --help   print this text and exit; nothing is read or written

Environment: REDIS_URL, REDIS_PREFIX, STREAM_PARTITIONS; see docs/configuration.md.

Exit status: 0 done, 1 nothing done or not everything (no such dead letter, a replay refused or already
settled by another command, Redis out of reach), 2 usage error, 78 configuration error.`;

const SUBCOMMANDS = ["list", "show", "replay", "drop"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

const spec = {
  prefix: "[dlq]",
  usage: USAGE,
  options: {
    json: { type: "boolean" },
    all: { type: "boolean" },
    yes: { type: "boolean" },
  },
} as const;

const { values, words } = parseCommandWords(spec);
const [subcommand, id, ...extra] = words;
if (subcommand === undefined) usageError(spec, "a subcommand is needed: list, show, replay or drop");
if (!(SUBCOMMANDS as readonly string[]).includes(subcommand)) {
  usageError(spec, `unknown subcommand '${subcommand}' (list, show, replay or drop)`);
}
const command = subcommand as Subcommand;
if (extra.length > 0) usageError(spec, `unexpected argument '${extra[0]}'`);
const all = values.all === true;
if (values.json && command !== "list" && command !== "show") usageError(spec, `--json is for list and show`);
if (all && command !== "replay" && command !== "drop") usageError(spec, `--all is for replay and drop`);
if (values.yes && !(command === "drop" && all)) usageError(spec, `--yes confirms drop --all only`);
if (command === "list" && id !== undefined) usageError(spec, `list takes no id (got '${id}')`);
if (command === "show" && id === undefined) usageError(spec, "show needs an id");
if ((command === "replay" || command === "drop") && all === (id !== undefined)) {
  usageError(spec, `${command} needs an id or --all, not both`);
}
if (command === "drop" && all && !values.yes) {
  usageError(spec, "drop --all deletes every dead letter for good: add --yes to confirm");
}

// Imported only once the arguments parsed: the configuration is read (and checked, exit 78) at import.
const { config } = await import("./env.ts");
const { runDlq } = await import("./run-dlq.ts");
process.exit(await runDlq(config, { command, id, all, json: values.json === true }));
