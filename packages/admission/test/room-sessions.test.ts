// Sessions that end on their order, as the worker ends a batch's (room-sessions.ts): one end-sessions-4.lua call
// per room, whatever the number of orders, each session out of the room's live count and its ticket expired; a
// redelivered batch changes nothing. Run on one Redis and on the cluster (each call in its room's slot).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endOrderSessions, joinRoom, readTicket } from "../src/index.ts";
import { RoomTestKit } from "./support/room-test-kit.ts";

let env: TestEnvironment;
let kit: RoomTestKit;

beforeAll(async () => {
  env = await createTestEnvironment("room-sessions", { shards: 1 });
  kit = await RoomTestKit.start(env.config);
  await kit.lead();
});

afterAll(async () => {
  await kit?.stop();
  await env?.cleanup();
});

/** Tickets admitted at once (the room does not queue). */
async function admittedTickets(roomId: string, count: number): Promise<string[]> {
  await kit.defineRoom(roomId, { mode: "off" });
  const tickets: string[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = await joinRoom(kit.redis, kit.keys, { roomId, userId: `${roomId}-${i}` });
    if (outcome.result !== "joined") throw new Error(`join: ${outcome.result}`);
    expect(outcome.ticket.status).toBe("admitted");
    tickets.push(outcome.ticket.ticketId);
  }
  return tickets;
}

/** The connection, counting the end-sessions calls sent through it. */
function counted(redis: ScriptedRedis): { redis: ScriptedRedis; calls: () => number } {
  let calls = 0;
  const proxy = new Proxy(redis, {
    get(target, property, receiver) {
      if (property === "endSessions") calls++;
      return Reflect.get(target, property, receiver);
    },
  });
  return { redis: proxy, calls: () => calls };
}

const live = (roomId: string) => kit.redis.zcard(kit.keys.room(roomId).sessions);

describe("ending a batch's sessions", () => {
  it("takes one call per room, ends every session named, and changes nothing when sent again", async () => {
    const first = await admittedTickets("sessions-a", 3);
    const second = await admittedTickets("sessions-b", 2);
    const kept = first.pop()!;
    expect(await live("sessions-a")).toBe(3);
    const sessions = [
      ...first.map((ticketId) => ({ roomId: "sessions-a", ticketId })),
      ...second.map((ticketId) => ({ roomId: "sessions-b", ticketId })),
    ];

    const connection = counted(kit.redis);
    await endOrderSessions(connection.redis, kit.keys, sessions);
    expect(connection.calls()).toBe(2);
    expect(await live("sessions-a")).toBe(1);
    expect(await live("sessions-b")).toBe(0);
    for (const { roomId, ticketId } of sessions)
      expect((await readTicket(kit.redis, kit.keys, roomId, ticketId))?.status).toBe("expired");
    expect((await readTicket(kit.redis, kit.keys, "sessions-a", kept))?.status).toBe("admitted");

    // A redelivered batch: the same sessions again end nothing more.
    await endOrderSessions(kit.redis, kit.keys, sessions);
    expect(await live("sessions-a")).toBe(1);
    expect((await readTicket(kit.redis, kit.keys, "sessions-a", kept))?.status).toBe("admitted");
  });
});
