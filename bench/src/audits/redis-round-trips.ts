// Redis round trips per accepted request, as the intake counts them on its request connection: scraped from
// /metrics before and after a phase of payments, so the figure is the intake's own, not an estimate. Every
// command is counted; a command sent beside a request's script in the same tick (a client address's rate-limit
// token: its own slot, so not in the script) is counted again apart, so round trips = commands - those, and
// both figures are reported. Several
// intake processes share the port (INTAKE_PROCESSES): a scrape on a fresh connection reaches one of them, so
// the counters are scraped until every process has answered, and summed.
import type { BenchIdentity } from "../harness/bench-identity.ts";
import { KeepAliveClient } from "../harness/keep-alive-client.ts";

export interface RoundTrips {
  payments: number;
  accepted: number;
  /** Every command on the request connections. */
  redisCommands: number;
  /** Of those, the ones sent beside a request's script, in the same round trip. */
  parallelCommands: number;
  /** Round trips per accepted payment: (redisCommands - parallelCommands) / accepted. */
  perAccepted: number | null;
  /** Commands per accepted payment, the parallel ones included. */
  commandsPerAccepted: number | null;
}

function sumOf(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(" ").at(-1));
  }
  return sum;
}

const PID = /^floodgate_intake_process_info\{pid="(\d+)"\}/m;

async function counters(baseUrl: string, processes: number) {
  const byPid = new Map<string, { accepted: number; commands: number; parallel: number }>();
  for (let attempt = 0; byPid.size < processes && attempt < processes * 50; attempt++) {
    const scraper = new KeepAliveClient(baseUrl, 1); // a new connection: the kernel picks a process
    try {
      const text = (await scraper.send("GET", "/metrics")).body;
      const pid = PID.exec(text)?.[1] ?? "unknown";
      byPid.set(pid, {
        accepted: sumOf(text, "floodgate_intake_accepted_total"),
        commands: sumOf(text, "floodgate_intake_redis_commands_total"),
        parallel: sumOf(text, "floodgate_intake_redis_parallel_commands_total"),
      });
    } finally {
      scraper.close();
    }
  }
  if (byPid.size < processes)
    throw new Error(`reached ${byPid.size} of ${processes} intake processes' /metrics`);
  let accepted = 0;
  let commands = 0;
  let parallel = 0;
  for (const counts of byPid.values()) {
    accepted += counts.accepted;
    commands += counts.commands;
    parallel += counts.parallel;
  }
  return { accepted, commands, parallel };
}

/** `payments` payments, payment i from `userId(i)` with its credentials, `parallel` in flight. */
export async function measureRoundTrips(options: {
  client: KeepAliveClient;
  baseUrl: string;
  /** Intake processes behind the port (their counters are summed). */
  intakeProcesses: number;
  payments: number;
  userId: (i: number) => string;
  identity: BenchIdentity;
  keyPrefix: string;
  parallel: number;
}): Promise<RoundTrips> {
  const before = await counters(options.baseUrl, options.intakeProcesses);
  let next = 0;
  const lane = async () => {
    while (next < options.payments) {
      const i = next++;
      const userId = options.userId(i);
      await options.client.send(
        "POST",
        "/v1/payments",
        { userId, amount: 1 },
        { ...options.identity.shopperHeaders(userId), "idempotency-key": `${options.keyPrefix}-${i}` },
      );
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, lane));
  const after = await counters(options.baseUrl, options.intakeProcesses);
  const accepted = after.accepted - before.accepted;
  const redisCommands = after.commands - before.commands;
  const parallelCommands = after.parallel - before.parallel;
  const per = (count: number) => (accepted === 0 ? null : Math.round((count / accepted) * 1000) / 1000);
  return {
    payments: options.payments,
    accepted,
    redisCommands,
    parallelCommands,
    perAccepted: per(redisCommands - parallelCommands),
    commandsPerAccepted: per(redisCommands),
  };
}
