// `./floodgate start`: its arguments first, then the system (start-system.ts), so `--help` or a typo reads no
// configuration, connects to nothing and starts nothing.
import { parseCommandArgs } from "./command-args.ts";

const USAGE = `Usage: ./floodgate start [--demo] [--help]

Finds Redis and Postgres (or starts them: a redis-server on PATH, an embedded Postgres, data in .data/),
creates missing databases and migrates them, reconciles Redis with Postgres, then runs INTAKE_PROCESSES intake
and WORKERS worker processes in the foreground. Ctrl-C or SIGTERM stops them gracefully. On a loopback HOST it
keeps a development server key in .data/dev-server-key.

Options:
  --demo       sign the demo's shoppers in (DEMO_LOGIN=on): anyone who reaches the page becomes any shopper,
               so a loopback HOST only, and never behind a proxy others reach
  -h, --help   print this text and exit; nothing is read, started or changed

Environment: HOST, PORT, REDIS_URL, REDIS_PREFIX, DATABASE_URL, SHARD_URLS, INTAKE_PROCESSES, WORKERS,
WORKER_NICE, AUTH, ADMIN_API_KEY, ADMISSION_TOKEN_SECRET, CUSTOMER_TOKEN_SECRET, DEMO_LOGIN and the rest of
docs/configuration.md (every process it runs reads it). Exit status: 0 stopped by a signal,
1 could not start, 2 usage error, 78 configuration error.`;

const args = parseCommandArgs({
  prefix: "[floodgate] start:",
  usage: USAGE,
  options: { demo: { type: "boolean" } },
});
// --demo is DEMO_LOGIN=on said on the command line: written in the configuration's own vocabulary, so the
// configuration stays the only reader of the environment and checks it with HOST (refused off loopback, exit
// 78) before anything starts, and every process start runs inherits it.
if (args.demo === true) process.env.DEMO_LOGIN = "on";

await import("./start-system.ts");
