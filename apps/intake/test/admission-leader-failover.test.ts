// The admission leader is one of the intake processes. Killed with SIGKILL mid-admission (no goodbye, its lease
// simply stops being renewed), another process takes the lease over, with a higher epoch that the room then
// keeps, and admissions go on: every waiting ticket admitted exactly once, in join order.
import { AdmissionKeys } from "@floodgate/admission";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import { waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let intakes: IntakeProcess[] = [];
let redis: ScriptedRedis;
let subscriber: ScriptedRedis;
let keys: AdmissionKeys;
const admissions: string[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("leader-failover", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  intakes = await Promise.all([startIntakeProcess(env.config), startIntakeProcess(env.config)]);
  redis = createRedis(env.config.redisUrl);
  subscriber = createRedis(env.config.redisUrl);
  await Promise.all([waitForRedis(redis), waitForRedis(subscriber)]);
  keys = new AdmissionKeys(new QueueKeys(env.config.redisPrefix, env.config.streamPartitions));
  subscriber.on("message", (_channel, message) => {
    const event = JSON.parse(message) as { admitted: [string, string, number][] | object };
    if (Array.isArray(event.admitted)) for (const [ticketId] of event.admitted) admissions.push(ticketId);
  });
  await subscriber.subscribe(keys.roomEventsChannel());
});

afterAll(async () => {
  await Promise.all(intakes.map((intake) => intake.kill()));
  subscriber?.disconnect();
  await redis?.quit();
  await env?.cleanup();
});

async function call(intake: IntakeProcess, method: string, path: string, body: unknown, admin = false) {
  const response = await fetch(`${intake.baseUrl}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${admin ? ADMIN_KEY : env.serverKey}`,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const leaderPid = async () => Number((await redis.get(keys.leaderLease()))?.split(":")[1]);

describe("admission leader fail-over", () => {
  it("goes on admitting after the leader is killed, admitting nobody twice and keeping the order", async () => {
    const defineRoom = (admitPerSecond: number) =>
      call(
        intakes[0]!,
        "PUT",
        "/v1/rooms/failover",
        { mode: "on", sessionSeconds: 600, guards: ["orders"], admitPerSecond },
        true,
      );
    // Nearly shut while the 60 join, however slow this machine is, so most are still waiting at the kill.
    expect((await defineRoom(1)).status).toBe(201);
    const joined: string[] = [];
    for (let i = 0; i < 60; i++) {
      const ticket = await call(intakes[i % 2]!, "POST", "/v1/rooms/failover/tickets", {
        userId: `queuer-${i}`,
      });
      expect(ticket.status).toBe(201);
      joined.push(ticket.body.ticketId as string);
    }
    // Then the pace the fail-over is watched at.
    expect((await defineRoom(15)).status).toBe(200);
    await waitUntil(
      async () => admissions.length,
      (n) => n >= 10,
      "the first admissions",
    );

    const pid = await leaderPid();
    const killedEpoch = Number(await redis.get(keys.leaderEpoch()));
    expect(killedEpoch).toBeGreaterThan(0);
    const victim = intakes.find((intake) => intake.child.pid === pid);
    expect(victim, `the lease names pid ${pid}, one of the two intakes`).toBeDefined();
    await victim!.kill("SIGKILL");
    const admittedAtKill = admissions.length;
    expect(admittedAtKill).toBeLessThan(60);

    await waitUntil(
      async () => admissions.length,
      (n) => n >= 60,
      "every ticket to be admitted",
      400,
    );
    const survivor = intakes.find((intake) => intake !== victim)!;
    expect(await leaderPid()).toBe(survivor.child.pid);
    const survivorEpoch = Number(await redis.get(keys.leaderEpoch()));
    expect(survivorEpoch).toBeGreaterThan(killedEpoch);
    expect(Number(await redis.hget(keys.room("failover").state, "leaderEpoch"))).toBe(survivorEpoch);
    expect(admissions).toHaveLength(60);
    expect(new Set(admissions).size).toBe(60);
    expect(admissions).toEqual(joined);
    // The survivor serves the tickets the killed process handed out.
    const last = await fetch(`${survivor.baseUrl}/v1/rooms/failover/tickets/${joined[59]}`, {
      headers: { authorization: `Bearer ${env.serverKey}` },
    });
    expect(((await last.json()) as { status: string }).status).toBe("admitted");
  });
});
