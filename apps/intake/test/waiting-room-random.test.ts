// `method: "random"` through the HTTP API, with this process as the admission leader: the leader admits at
// random among those waiting, each equally likely. Checked by the distribution: 200 shoppers join (the room
// admitting one a second meanwhile), then the room admits 20 a second; once at least 60 more are admitted, the
// queue is read at one instant. The admitted ones must be a uniform draw from those who were waiting: counted by
// quarter of the join order, a chi-square statistic (3 degrees of freedom) stays under 40, which a fair draw
// exceeds with probability about 1e-8 (less still, drawn without replacement), and first come first served
// (every admitted one from the first quarters) exceeds by far.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import { post, waitUntil } from "./support/intake-test-kit.ts";
import { putRoom, waitingTickets } from "./support/room-admin-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-random", {
    env: { ADMIN_API_KEY: ADMIN_KEY, RATE_LIMITS: "room-joins.ip=off" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const SHOPPERS = 200;
const GROUPS = 4;
const AT_LEAST_ADMITTED = 60;
/** Chi-square, 3 degrees of freedom: P(X² > 40) ≈ 1.1e-8 for a multinomial draw. */
const CHI_SQUARE_BOUND = 40;

const room = (admitPerSecond: number) => ({
  mode: "on",
  admitPerSecond,
  sessionSeconds: 600,
  method: "random",
});

/** Pearson's statistic of how many admitted fell in each group against what a uniform draw expects. */
function chiSquare(groups: string[][], admitted: Set<string>, population: number): number {
  return groups.reduce((sum, group) => {
    const expected = (admitted.size * group.length) / population;
    const observed = group.filter((ticketId) => admitted.has(ticketId)).length;
    return sum + (observed - expected) ** 2 / expected;
  }, 0);
}

describe('method "random"', () => {
  it("admits each waiting shopper with equal chance, whatever their place in the queue", async () => {
    const defined = await putRoom(app, "draw", room(1));
    expect(defined.statusCode, defined.body).toBe(201);
    expect(defined.json().method).toBe("random");
    const joined: string[] = [];
    for (let i = 0; i < SHOPPERS; i++) {
      const answer = await post(app, "/v1/rooms/draw/tickets", { userId: `entrant-${i}` });
      expect(answer.statusCode, answer.body).toBe(201);
      joined.push(answer.json().ticketId);
    }
    // The draw is among those waiting now (in join order): the few admitted while the others joined are left out.
    const waitingAtStart = await waitingTickets(app, "draw");
    const population = joined.filter((ticketId) => waitingAtStart.has(ticketId));
    expect(population.length).toBeGreaterThan(SHOPPERS - 20);

    await putRoom(app, "draw", room(20));
    const target = population.length - AT_LEAST_ADMITTED;
    const waitingNow = await waitUntil(
      () => waitingTickets(app, "draw"),
      (waiting) => waiting.size <= target,
      `${AT_LEAST_ADMITTED} admitted`,
    );
    const admitted = new Set(population.filter((ticketId) => !waitingNow.has(ticketId)));
    expect(admitted.size).toBeGreaterThanOrEqual(AT_LEAST_ADMITTED);
    // Far from all of them: with most admitted, first come first served would look like a fair draw too.
    expect(admitted.size).toBeLessThan(population.length / 2);

    const size = Math.ceil(population.length / GROUPS);
    const groups = Array.from({ length: GROUPS }, (_, g) => population.slice(g * size, (g + 1) * size));
    expect(chiSquare(groups, admitted, population.length)).toBeLessThan(CHI_SQUARE_BOUND);
    // What first come first served would have admitted scores far above the bound: the check can fail.
    expect(chiSquare(groups, new Set(population.slice(0, admitted.size)), population.length)).toBeGreaterThan(
      CHI_SQUARE_BOUND,
    );
  });
});
