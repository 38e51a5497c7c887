// A subscriber closed while ioredis's own re-subscription after a reconnect is still unanswered (a shutdown just
// as Redis came back): that SUBSCRIBE's promise, which nobody holds, is rejected "Connection is closed." and
// must not surface as an unhandled rejection, which ends a Node process (it failed `./floodgate test` once, in
// an intake test that took Redis away and closed its app right after). Redis is reached through a TCP proxy
// the test takes down; channels only, nothing stored.
import { randomUUID } from "node:crypto";
import { startTcpProxy, type TcpProxy } from "@floodgate/test-fixtures";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createSubscriber } from "../src/index.ts";

const REDIS_URL = new URL(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379");

let proxy: TcpProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/**
 * Unhandled rejections while `run` runs. Node reports a rejection left unhandled once the tick's microtasks are
 * done, so one turn of the event loop after `run` has seen them all.
 */
async function unhandledRejectionsOf(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

const nextEvent = (connection: Redis, event: string) =>
  new Promise<void>((resolve) => connection.once(event, () => resolve()));

describe("createSubscriber", () => {
  it("closed while it subscribes again after a reconnect: no unhandled rejection, and its own calls still fail", async () => {
    proxy = await startTcpProxy(REDIS_URL.hostname, Number(REDIS_URL.port || 6379));
    const subscriber = createSubscriber(`redis://127.0.0.1:${proxy.port}`, "subscriber-close-test") as Redis;
    subscriber.on("error", () => {});
    const channel = `fgt:subscriber-close:${randomUUID()}`;
    await subscriber.subscribe(channel);

    const rejections = await unhandledRejectionsOf(async () => {
      const closed = nextEvent(subscriber, "close");
      await proxy!.down();
      await closed;
      const ready = nextEvent(subscriber, "ready");
      await proxy!.up();
      // "ready" is emitted on the tick after ioredis sent its SUBSCRIBE again, before any answer can arrive.
      await ready;
      expect(subscriber.status).toBe("ready");
      // Ended: ioredis has rejected what it still held ("Connection is closed.").
      const ended = nextEvent(subscriber, "end");
      subscriber.disconnect();
      await ended;
    });
    expect(rejections).toEqual([]);

    // A caller's own command on a closed connection is still refused to that caller.
    await expect(subscriber.subscribe(`${channel}:after`)).rejects.toThrow();
  });
});
