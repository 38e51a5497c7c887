// What the calibration loop misses. Round 7 (README) ran on an hour when that loop was as fast as ever, yet the
// same payments took up to twice the CPU: the loop makes no system call and touches almost no memory, and the
// system under test does little else. These two probes time exactly that kind of work, so a slow hour shows up
// in the result file instead of only in the figures.
import { once } from "node:events";
import net, { type AddressInfo } from "node:net";

const ROUND_TRIP_BYTES = 256;

/**
 * µs per round trip of a small message over a loopback TCP connection, both ends in this process: each trip
 * is two writes, two reads and two event-loop wakes, the path every request and Redis call of the intake takes.
 */
export async function loopbackRoundTripUs(rounds = 20_000): Promise<number> {
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => {
    accepted.push(socket);
    socket.setNoDelay(true);
    socket.on("data", (chunk) => socket.write(chunk));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const client = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
  try {
    client.setNoDelay(true);
    await once(client, "connect");
    const payload = Buffer.alloc(ROUND_TRIP_BYTES, "x");
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      let pending = 0;
      let done = 0;
      client.on("error", reject);
      client.on("data", (chunk) => {
        pending += chunk.length;
        while (pending >= ROUND_TRIP_BYTES) {
          pending -= ROUND_TRIP_BYTES;
          if (++done === rounds) return resolve();
          client.write(payload);
        }
      });
      client.write(payload);
    });
    return ((performance.now() - started) * 1000) / rounds;
  } finally {
    // Resolve only once every socket and the server are closed, so the probe leaves no handle behind it.
    const serverClosed = new Promise((resolve) => server.close(resolve));
    const sockets = [client, ...accepted];
    for (const socket of sockets) socket.destroy();
    await Promise.all(sockets.map((socket) => (socket.closed ? undefined : once(socket, "close"))));
    await serverClosed;
  }
}

/**
 * ns per read when each read depends on the last and lands at a random place in 64 MiB (a single cycle through
 * the array, so neither the caches nor the prefetcher can help): the memory latency Redis' and Postgres' lookups
 * pay.
 */
export function memoryReadNs(steps = 5_000_000, slots = 1 << 24): number {
  const next = new Int32Array(slots);
  for (let i = 0; i < slots; i++) next[i] = i;
  // Sattolo's shuffle, with a fixed-seed generator so every run walks the same cycle.
  let seed = 0x2545f491;
  for (let i = slots - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    const j = seed % i;
    const swap = next[i]!;
    next[i] = next[j]!;
    next[j] = swap;
  }
  let at = 0;
  const started = performance.now();
  for (let i = 0; i < steps; i++) at = next[at]!;
  const ns = ((performance.now() - started) * 1e6) / steps;
  // Use the walk's end, so the loop cannot be optimised away.
  return at >= 0 ? ns : Number.NaN;
}
