// request.log makes its pino child only when a request logs: the lines a request writes must be the lines it
// wrote before, its reqId on each, from a handler, from a hook and from Fastify's own error handling.
import { Writable } from "node:stream";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lazyRequestLogger } from "../src/logging/lazy-request-logger.ts";

const lines: Record<string, unknown>[] = [];
let app: FastifyInstance;
let levelSeen: unknown;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  app = Fastify({
    logger: { level: "info", stream },
    childLoggerFactory: lazyRequestLogger,
    genReqId: (raw) => String(raw.headers["x-request-id"]),
  });
  app.addHook("onRequest", (request, _reply, done) => {
    levelSeen = request.log.level;
    if (request.url === "/hook") request.log.warn({ where: "hook" }, "from a hook");
    done();
  });
  app.get("/quiet", async () => ({ ok: true }));
  app.get("/hook", async () => ({ ok: true }));
  app.get("/handler", async (request) => {
    request.log.info({ where: "handler" }, "from a handler");
    request.log.child({ part: "inner" }).info("from a child");
    request.log.debug("below the level");
    return { ok: true };
  });
  app.get("/throws", async () => {
    throw new Error("boom");
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
});

const get = (url: string, id: string) => app.inject({ url, headers: { "x-request-id": id } });

describe("the lazy request logger", () => {
  it("writes every line a request logs with its reqId, and none below the level", async () => {
    await get("/handler", "h-1");
    await get("/hook", "k-2");
    const mine = lines.filter((line) => line.reqId === "h-1" || line.reqId === "k-2");
    expect(mine.map((line) => [line.reqId, line.msg])).toEqual([
      ["h-1", "incoming request"],
      ["h-1", "from a handler"],
      ["h-1", "from a child"],
      ["h-1", "request completed"],
      ["k-2", "incoming request"],
      ["k-2", "from a hook"],
      ["k-2", "request completed"],
    ]);
    expect(mine.find((line) => line.msg === "from a child")?.part).toBe("inner");
    expect(mine.find((line) => line.msg === "from a hook")?.where).toBe("hook");
  });

  it("carries the reqId on Fastify's own error line", async () => {
    expect((await get("/throws", "t-3")).statusCode).toBe(500);
    const error = lines.find((line) => line.reqId === "t-3" && line.level === 50);
    expect((error?.err as { message?: string } | undefined)?.message).toBe("boom");
  });

  it("reports the logger's level before anything is logged", async () => {
    await get("/quiet", "q-4");
    expect(levelSeen).toBe("info");
  });
});
