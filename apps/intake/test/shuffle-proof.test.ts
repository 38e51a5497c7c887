// A scheduled room's pre-queue checked from outside, as a shopper would, against the real intake (this process
// is the admission leader) and Redis: the commitment published before the start (on the public proof route and
// the room's view) is SHA-256 of the seed revealed after it, and the order the room admitted its pre-queue in is
// the one @floodgate/node recomputes from the proof alone; another seed or another list gives another order.
import { createHash } from "node:crypto";
import { ShuffleProofError, shuffleOrder, verifyShuffleProof } from "@floodgate/node";
import { createSubscriber, type RedisConnection, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, post, waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let subscriber: RedisConnection;
/** Ticket ids in the order the leader's ticks announced their admission, per room. */
const admitted = new Map<string, string[]>();

beforeAll(async () => {
  env = await createTestEnvironment("shuffle-proof-http", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  subscriber = createSubscriber(env.config.redisUrl, "shuffle-proof-test-events");
  await waitForRedis(subscriber);
  await subscriber.subscribe(app.admission.keys.roomEventsChannel());
  subscriber.on("message", (_channel, message) => {
    const event = JSON.parse(message) as { room: string; admitted: [string, string, number][] | object };
    if (!Array.isArray(event.admitted)) return;
    const order = admitted.get(event.room) ?? [];
    order.push(...event.admitted.map(([ticketId]) => ticketId));
    admitted.set(event.room, order);
  });
});

afterAll(async () => {
  subscriber?.disconnect();
  await app?.close();
  await env?.cleanup();
});

const putRoom = (roomId: string, startsAt: string | null) =>
  documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: { mode: "on", admitPerSecond: 40, sessionSeconds: 60, guards: [], startsAt },
  });
const getRoom = (roomId: string) =>
  documentedInject(app, { method: "GET", url: `/v1/rooms/${roomId}`, headers: adminHeaders() });
/** The public route, with no credential at all. */
const getProof = (roomId: string) =>
  documentedInject(app, { method: "GET", url: `/v1/rooms/${roomId}/shuffle-proof` });
const join = async (roomId: string, userId: string): Promise<string> => {
  const response = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(response.statusCode).toBe(201);
  return response.json().ticketId;
};
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const sha256Hex = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");

describe("a scheduled room's shuffle proof", () => {
  it("commits before the start, and after it reveals a seed and list that recompute the admitted order", async () => {
    const defined = await putRoom("drop", inMinutes(10));
    expect(defined.statusCode).toBe(201);
    const commitment: string = defined.json().shuffleCommitment;
    expect(commitment).toMatch(/^[0-9a-f]{64}$/);

    const before = await getProof("drop");
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({
      roomId: "drop",
      status: "scheduled",
      commitment,
      committedAt: expect.any(String),
      closedAt: null,
      seed: null,
      listHash: null,
      tickets: null,
    });
    expect((await getRoom("drop")).json().shuffleCommitment).toBe(commitment);

    const early: string[] = [];
    for (let i = 0; i < 30; i++) early.push(await join("drop", `early-${i}`));
    // Moving a start that has not come keeps its commitment.
    expect((await putRoom("drop", inMinutes(20))).json().shuffleCommitment).toBe(commitment);
    expect((await getProof("drop")).json()).toMatchObject({ status: "scheduled", commitment, seed: null });

    // The start, now: the next join closes the pre-queue's list and queues behind all of it.
    await putRoom("drop", new Date(Date.now() - 1000).toISOString());
    const late = [await join("drop", "late-0"), await join("drop", "late-1")];
    const order = await waitUntil(
      async () => admitted.get("drop") ?? [],
      (ids) => ids.length === 32,
      "the pre-queue and the late joins to be admitted",
    );

    const after = await getProof("drop");
    expect(after.statusCode).toBe(200);
    const proof = after.json();
    expect(proof).toMatchObject({ roomId: "drop", status: "published", commitment });
    expect(sha256Hex(proof.seed)).toBe(commitment);
    expect(proof.tickets).toEqual([...early].sort());
    expect(Date.parse(proof.committedAt)).toBeLessThan(Date.parse(proof.closedAt));
    // The pre-queue went first, in the order the proof gives; the late joins after it, first come first served.
    expect(verifyShuffleProof(proof)).toEqual(order.slice(0, 30));
    expect(order.slice(30)).toEqual(late);
    expect(order.slice(0, 30)).not.toEqual(early);
    expect((await getRoom("drop")).json().shuffleCommitment).toBe(commitment);

    // Another seed, or another list, does not give the admitted order.
    const otherSeed = `${proof.seed.slice(0, -1)}${proof.seed.endsWith("0") ? "1" : "0"}`;
    expect(shuffleOrder({ seed: otherSeed, tickets: proof.tickets })).not.toEqual(order.slice(0, 30));
    const fewer = proof.tickets.slice(1);
    expect(shuffleOrder({ seed: proof.seed, tickets: fewer })).not.toEqual(
      order.slice(0, 30).filter((id) => id !== proof.tickets[0]),
    );
    const more = [...proof.tickets, "tkt_0000000000AAAAAAAAAAAAAAAA"];
    expect(shuffleOrder({ seed: proof.seed, tickets: more }).filter((id) => early.includes(id))).not.toEqual(
      order.slice(0, 30),
    );
    expect(() => verifyShuffleProof({ ...proof, seed: otherSeed })).toThrow(ShuffleProofError);
    expect(() => verifyShuffleProof({ ...proof, tickets: fewer })).toThrow(ShuffleProofError);
  });

  it("has none for a room never scheduled, nor for an unknown room", async () => {
    expect((await putRoom("unscheduled", null)).json().shuffleCommitment).toBeNull();
    expectProblem(await getProof("unscheduled"), 404, "not_found", "roomId");
    expectProblem(await getProof("nowhere"), 404, "not_found", "roomId");
  });
});
