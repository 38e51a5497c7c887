// Redis round trips per accepted request, as the intake counts them on its request connection: scraped from
// /metrics before and after a phase of payments, so the figure is the intake's own, not an estimate.
import type { KeepAliveClient } from "./keep-alive-client.ts";

export interface RoundTrips {
  payments: number;
  accepted: number;
  redisCommands: number;
  perAccepted: number | null;
}

function sumOf(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(" ").at(-1));
  }
  return sum;
}

async function counters(client: KeepAliveClient) {
  const text = (await client.send("GET", "/metrics")).body;
  return {
    accepted: sumOf(text, "floodgate_intake_accepted_total"),
    commands: sumOf(text, "floodgate_intake_redis_commands_total"),
  };
}

/** `payments` payments from `users` distinct users, `parallel` in flight. */
export async function measureRoundTrips(options: {
  client: KeepAliveClient;
  payments: number;
  userId: (i: number) => string;
  keyPrefix: string;
  parallel: number;
}): Promise<RoundTrips> {
  const before = await counters(options.client);
  let next = 0;
  const lane = async () => {
    while (next < options.payments) {
      const i = next++;
      await options.client.send(
        "POST",
        "/v1/payments",
        { userId: options.userId(i), amount: 1 },
        { "idempotency-key": `${options.keyPrefix}-${i}` },
      );
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, lane));
  const after = await counters(options.client);
  const accepted = after.accepted - before.accepted;
  const redisCommands = after.commands - before.commands;
  return {
    payments: options.payments,
    accepted,
    redisCommands,
    perAccepted: accepted === 0 ? null : Math.round((redisCommands / accepted) * 1000) / 1000,
  };
}
