// The fd census tells a socket held for a client that is gone (the leak) from a live client's connection.
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fdCensus } from "../src/hostile/intake-fd-census.ts";

let server: Server;
let port: number;
const accepted: Socket[] = [];

beforeAll(async () => {
  // A server that never closes what it accepted: each socket whose client hangs up stays in CLOSE-WAIT.
  server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket);
    socket.on("error", () => {});
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  for (const socket of accepted) socket.destroy();
  server.close();
});

const waitFor = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 50 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
};

describe("fdCensus", () => {
  it("counts a live client's connection, and as orphaned once the client has gone", async () => {
    const start = await fdCensus(process.pid, port);
    const client = connect(port, "127.0.0.1");
    await once(client, "connect");
    await waitFor(async () => (await fdCensus(process.pid, port)).clientSockets > start.clientSockets);
    const live = await fdCensus(process.pid, port);
    expect(live.clientSockets).toBe(start.clientSockets + 1);
    expect(live.orphanedSockets).toBe(start.orphanedSockets);
    client.destroy();
    await waitFor(async () => (await fdCensus(process.pid, port)).orphanedSockets > start.orphanedSockets);
    expect((await fdCensus(process.pid, port)).orphanedSockets).toBe(start.orphanedSockets + 1);
  });
});
