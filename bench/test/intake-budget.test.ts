import { describe, expect, it } from "vitest";
import { budgetHeld, budgetLine, postgresBudget } from "../src/audits/intake-budget.ts";
import type { IntakePostgresActivity } from "../src/audits/intake-postgres-watch.ts";

const RELOAD = 'select "id", "key_hash" from "api_keys" where "revoked_at" is null';
const activity = (
  queries: IntakePostgresActivity["queries"],
  watchedMs = 10_000,
): IntakePostgresActivity => ({
  connections: 7,
  connectionsThatQueried: queries.length,
  queries,
  samples: 20,
  watchedMs,
});
const redis = (accepted: number, commands: number, parallel = 0) => ({
  payments: accepted,
  accepted,
  redisCommands: commands,
  parallelCommands: parallel,
  perAccepted: accepted === 0 ? null : (commands - parallel) / accepted,
  commandsPerAccepted: accepted === 0 ? null : commands / accepted,
});

describe("the intake budget", () => {
  it("holds at 1 Redis command per accepted payment and no Postgres query", () => {
    const postgres = postgresBudget(activity([]), 1);
    expect(postgres).toMatchObject({ requestQueries: 0, keyCacheReloads: 0 });
    expect(budgetHeld(redis(5000, 5000), postgres)).toBe(true);
    expect(budgetLine("floodgate", { auth: "on", redis: redis(5000, 5000), postgres, held: true })).toContain(
      "1 Redis round trips per accepted payment (5,000 commands), 0 Postgres queries from the intake's 7 connections: held",
    );
  });

  it("holds with fewer round trips than payments when payments share a script call", () => {
    const postgres = postgresBudget(activity([]), 1);
    expect(budgetHeld(redis(5000, 775), postgres)).toBe(true);
    expect(budgetLine("floodgate", { auth: "on", redis: redis(5000, 775), postgres, held: true })).toContain(
      "0.155 Redis round trips per accepted payment (775 commands)",
    );
  });

  it("holds with a client address's token sent beside each script, and says so", () => {
    const postgres = postgresBudget(activity([]), 1);
    const paired = redis(5000, 10_000, 5000);
    expect(budgetHeld(paired, postgres)).toBe(true);
    expect(budgetLine("floodgate", { auth: "on", redis: paired, postgres, held: true })).toContain(
      "1 Redis round trips per accepted payment (10,000 commands, 5,000 of them sent beside a script in its round trip: 2 commands per accepted payment)",
    );
    // More than one command beside each script is not a budget of one round trip plus one parallel token.
    expect(budgetHeld(redis(5000, 15_000, 10_000), postgres)).toBe(false);
  });

  it("breaks on a second Redis command, on no accepted payment, or on any query of a request", () => {
    const none = postgresBudget(activity([]), 1);
    expect(budgetHeld(redis(5000, 5001), none)).toBe(false);
    // A second command after the script is a second round trip, whatever it is for.
    expect(budgetHeld(redis(5000, 10_000), none)).toBe(false);
    expect(budgetHeld(redis(0, 0), none)).toBe(false);
    const queried = postgresBudget(activity([{ query: "select * from wallets", seen: 3 }]), 1);
    expect(queried.requestQueries).toBe(3);
    expect(budgetHeld(redis(5000, 5000), queried)).toBe(false);
  });

  it("leaves the server-key cache's once-a-minute reload out, as long as it keeps to its timer", () => {
    const once = postgresBudget(activity([{ query: RELOAD, seen: 1 }], 10_000), 1);
    expect(once).toMatchObject({ requestQueries: 0, keyCacheReloads: 1, keyCacheReloadsAllowed: 2 });
    expect(budgetHeld(redis(5000, 5000), once)).toBe(true);
    // Reloading on every request would be a query per request, whatever its text.
    const perRequest = postgresBudget(activity([{ query: RELOAD, seen: 18 }], 10_000), 2);
    expect(perRequest.keyCacheReloadsAllowed).toBe(4);
    expect(budgetHeld(redis(5000, 5000), perRequest)).toBe(false);
  });

  it("reports the health probes of /readyz and the /metrics scrapes apart, never as a request's query", () => {
    const probed = postgresBudget(
      activity([
        { query: "select 1", seen: 10 },
        { query: "select balance from wallets where user_id = $1", seen: 1 },
      ]),
      1,
    );
    expect(probed).toMatchObject({ requestQueries: 1, healthProbes: 10 });
    expect(budgetHeld(redis(5000, 5000), probed)).toBe(false);
    const onlyProbes = postgresBudget(activity([{ query: "select 1", seen: 10 }]), 1);
    expect(budgetHeld(redis(5000, 5000), onlyProbes)).toBe(true);
  });

  it("leaves the shard map's timer poll out, as long as it keeps to its timer (every 250 ms per process)", () => {
    const POLL = 'select "version" from "shard_map_version"';
    const polled = postgresBudget(activity([{ query: POLL, seen: 2 }], 2_000), 2);
    expect(polled).toMatchObject({ requestQueries: 0, shardMapPolls: 2, shardMapPollsAllowed: 54 });
    expect(budgetHeld(redis(5000, 5000), polled)).toBe(true);
    expect(
      budgetLine("floodgate", { auth: "on", redis: redis(5000, 5000), postgres: polled, held: true }),
    ).toContain("(besides 2 shard-map poll(s), a timer every 250 ms per process, at most 54): held");
    // Polling per request would be far more than its timer allows.
    const perRequest = postgresBudget(activity([{ query: POLL, seen: 5000 }], 2_000), 2);
    expect(budgetHeld(redis(5000, 5000), perRequest)).toBe(false);
  });
});
