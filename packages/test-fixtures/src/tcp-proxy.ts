// A TCP proxy in front of a shard, so a test can take "the shard" down (refuse and cut connections) and bring
// it back, while the real Postgres behind it keeps running for the other shards. It can also hold the server's
// replies: a query has run (its snapshot taken) but the client has not heard back, so a test can decide what
// happens in between. Or hold what the client sends: the server never hears it (a frozen server, or a client
// whose last requests never left it), from now on or from the moment a connection sends a given command.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /** Cuts every open connection and refuses new ones. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** From now on, what the server sends is kept here instead of reaching the client. */
  holdReplies(): void;
  /** Bytes of replies held since holdReplies(). */
  heldReplyBytes(): number;
  /** The held replies, each connection's chunks joined in order (what its client has not heard yet). */
  heldReplies(): Buffer[];
  /** Delivers the held replies, in order, and lets replies through again. */
  releaseReplies(): void;
  /** From now on, what clients send is kept here instead of reaching the server. */
  holdRequests(): void;
  /**
   * From now on, a connection that sends `marker` (e.g. a script's SHA1, as EVALSHA sends it) has what it sends
   * held from the chunk that completes the marker on: that request and everything after it on the connection
   * (so its stream stays in order); other connections go through. Set before a client starts, it makes a request
   * that never arrives without waiting for the moment it is sent.
   */
  holdRequestsFrom(marker: string): void;
  /** Bytes of requests held since holdRequests() or holdRequestsFrom(). */
  heldRequestBytes(): number;
  /** Delivers the held requests, in order, and lets requests through again. */
  releaseRequests(): void;
  /** Every reply chunk from now on reaches its client `ms` later, in order (a slow server); 0 turns it off. */
  delayReplies(ms: number): void;
  close(): Promise<void>;
}

/** `listenHost`: where it listens (default loopback; a test host's processes reach the root namespace only at
 * its bridge address). */
export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  listenHost = "127.0.0.1",
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let holding = false;
  // A held reply, or the end of a connection that ended while replies were held (null): delivered in order.
  let held: { client: Socket; chunk: Buffer | null }[] = [];
  let holdingRequests = false;
  let heldRequests: { upstream: Socket; chunk: Buffer | null }[] = [];
  let requestMarker: Buffer | undefined;
  // Connections whose client sent the marker: everything they send from then on is held.
  const markedClients = new Set<Socket>();
  let replyDelayMs = 0;
  // Delivers a reply now, or after the delay; one delay for all keeps each connection's replies in order.
  const deliver = (client: Socket, chunk: Buffer | null) => {
    const send = () => {
      if (client.destroyed) return;
      if (chunk === null) client.end();
      else client.write(chunk);
    };
    if (replyDelayMs > 0) setTimeout(send, replyDelayMs);
    else send();
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => {
            sockets.delete(socket);
            markedClients.delete(socket);
          });
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        // The last bytes sent, so a marker split over two chunks is still found.
        let tail = Buffer.alloc(0);
        const marked = (chunk: Buffer) => {
          if (markedClients.has(client)) return true;
          if (requestMarker === undefined) return false;
          const seen = Buffer.concat([tail, chunk]);
          tail = seen.subarray(Math.max(0, seen.length - requestMarker.length + 1));
          if (!seen.includes(requestMarker)) return false;
          markedClients.add(client);
          return true;
        };
        client.on("data", (chunk: Buffer) => {
          if (holdingRequests || marked(chunk)) heldRequests.push({ upstream, chunk });
          else upstream.write(chunk);
        });
        client.on("end", () => {
          if (holdingRequests || markedClients.has(client)) heldRequests.push({ upstream, chunk: null });
          else upstream.end();
        });
        upstream.on("data", (chunk: Buffer) => {
          if (holding) held.push({ client, chunk });
          else deliver(client, chunk);
        });
        upstream.on("end", () => {
          if (holding) held.push({ client, chunk: null });
          else deliver(client, null);
        });
      });
      server.listen(port, listenHost, () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  return {
    get port() {
      return port;
    },
    down: stop,
    up: listen,
    holdReplies() {
      holding = true;
    },
    heldReplyBytes: () => held.reduce((sum, { chunk }) => sum + (chunk?.length ?? 0), 0),
    heldReplies() {
      const byClient = new Map<Socket, Buffer[]>();
      for (const { client, chunk } of held) {
        if (chunk !== null) byClient.set(client, [...(byClient.get(client) ?? []), chunk]);
      }
      return [...byClient.values()].map((chunks) => Buffer.concat(chunks));
    },
    releaseReplies() {
      holding = false;
      for (const { client, chunk } of held) {
        if (client.destroyed) continue;
        if (chunk === null) client.end();
        else client.write(chunk);
      }
      held = [];
    },
    holdRequests() {
      holdingRequests = true;
    },
    holdRequestsFrom(marker) {
      requestMarker = Buffer.from(marker);
    },
    heldRequestBytes: () => heldRequests.reduce((sum, { chunk }) => sum + (chunk?.length ?? 0), 0),
    releaseRequests() {
      holdingRequests = false;
      requestMarker = undefined;
      markedClients.clear();
      for (const { upstream, chunk } of heldRequests) {
        if (upstream.destroyed) continue;
        if (chunk === null) upstream.end();
        else upstream.write(chunk);
      }
      heldRequests = [];
    },
    delayReplies(ms) {
      replyDelayMs = ms;
    },
    close: stop,
  };
}
