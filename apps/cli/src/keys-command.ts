// `./floodgate keys`: the ES256 keys that sign waiting-room admission tokens, kept in the global database.
// `rotate` adds the next key; `list` shows those published. Exit 0 done, 1 failed, 2 usage error,
// 78 configuration error.
import { parseCommandWords, usageError } from "./command-args.ts";

/** Longer than the JWKS's max-age (300 s) plus an intake's key reload (30 s): see admission-signing-keys.ts. */
const DEFAULT_LEAD_SECONDS = 600;

const USAGE = `Usage: ./floodgate keys list
       ./floodgate keys rotate [--lead SECONDS]

The keys that sign waiting-room admission tokens (ES256), kept in the global database and published at
GET /.well-known/jwks.json. \`migrate\` makes the first one.

list     prints each published key: its kid, generation, when it signs from, and whether it signs now
rotate   adds a new key. It is published (and verifies) at once and signs new tokens after --lead, so every
         intake has read it and every shop's cached JWKS lists it before a token carries it. The key it replaces
         keeps verifying, and stays published for 24 h more (the longest session), until its tokens have expired.

Options:
  --lead SECONDS  seconds before the new key signs (default ${DEFAULT_LEAD_SECONDS}; 0: at once, e.g. when the old
                  key leaked, accepting that a shop whose cached JWKS lacks it refuses tokens until it fetches again)
  -h, --help      print this text and exit; nothing is read or changed

Environment: DATABASE_URL (the global database); with ADMISSION_SIGNING_KEYS set the keys come from it and
rotate refuses (rotate them there). See docs/configuration.md. Exit status: 0 done, 1 failed, 2 usage error,
78 configuration error.`;

const spec = { prefix: "[keys]", usage: USAGE, options: { lead: { type: "string" } } } as const;
const { values, words } = parseCommandWords(spec);
const [subcommand, ...rest] = words;
if (subcommand === undefined) usageError(spec, "needs a subcommand: list or rotate");
if (subcommand !== "list" && subcommand !== "rotate") usageError(spec, `unknown subcommand '${subcommand}'`);
if (rest.length > 0) usageError(spec, `unexpected argument '${rest[0]}'`);
if (subcommand === "list" && values.lead !== undefined) usageError(spec, "--lead is for rotate");
let lead = DEFAULT_LEAD_SECONDS;
if (values.lead !== undefined) {
  lead = Number(values.lead);
  if (!/^\d+$/.test(String(values.lead)) || lead > 86_400) {
    usageError(spec, `--lead must be a whole number of seconds from 0 to 86400, got ${values.lead}`);
  }
}

// Imported only once the arguments parsed: the configuration is read (and checked) at import.
const { config } = await import("./env.ts");
const out = (line: string) => process.stdout.write(`[keys] ${line}\n`);
if (subcommand === "rotate" && config.admissionSigningKeys !== null) {
  process.stderr.write(
    "[keys] ADMISSION_SIGNING_KEYS is set: the intakes sign with those keys, not the database's; rotate them there (docs/configuration.md)\n",
  );
  process.exit(1);
}
try {
  const { listKeys, rotateKeys } = await import("./keys/admission-keys-actions.ts");
  const lines =
    subcommand === "rotate" ? await rotateKeys(config.databaseUrl, lead) : await listKeys(config.databaseUrl);
  for (const line of lines) out(line);
} catch (error) {
  process.stderr.write(`[keys] ${subcommand} failed: ${(error as Error).message}\n`);
  process.exit(1);
}
