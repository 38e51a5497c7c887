// The body of a crowd part's process (crowd-part-process.ts): its shoppers' sockets, polls and payments on an
// event loop of their own. It joins no one: part 0 sends every join and hands over the answers of this part's
// shoppers; from there each watches its place and pays as in one crowd (flash-sale-crowd.ts).
import { NO_IDENTITY } from "../harness/bench-identity.ts";
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { startLoopLateness } from "../harness/loop-lateness.ts";
import {
  type CrowdPartSpec,
  type FromCrowdPart,
  type ToCrowdPart,
  tokenTableIdentity,
} from "./crowd-parts.ts";
import { Crowd } from "./flash-sale-crowd.ts";
import { buyOneUnit } from "./stock-sale.ts";

if (process.send === undefined)
  throw new Error("crowd-part-entry.ts runs as a child process (see crowd-part-process.ts)");

const post = (message: FromCrowdPart) => process.send!(message);

let crowd: Crowd | null = null;
let clients: KeepAliveClient[] = [];
let loop: ReturnType<typeof startLoopLateness> | null = null;

function start(spec: CrowdPartSpec): Crowd {
  const identity = spec.tokens === null ? NO_IDENTITY : tokenTableIdentity(spec.tokens);
  const pollClient = new KeepAliveClient(spec.baseUrl, spec.connections);
  const payClient = new KeepAliveClient(spec.baseUrl, spec.connections);
  clients = [pollClient, payClient];
  const started = new Crowd({
    baseUrl: spec.baseUrl,
    roomId: spec.roomId,
    users: spec.users,
    websockets: spec.websockets,
    // Part 0 runs the joins: these two only shape its join thread.
    joinRate: 0,
    slices: 1,
    connections: spec.connections,
    pollIntervalMs: spec.pollIntervalMs,
    sessionMs: spec.sessionMs,
    keyPrefix: spec.keyPrefix,
    identity,
    pollClient,
    payClient,
    part: spec.part,
    ...(spec.productId === null
      ? {}
      : {
          purchase: buyOneUnit({
            client: payClient,
            identity,
            productId: spec.productId,
            keyPrefix: spec.keyPrefix,
          }),
        }),
  });
  loop = startLoopLateness();
  started.settled.then(() => post({ type: "settled" }));
  return started;
}

process.on("message", (message: ToCrowdPart) => {
  try {
    if (message.type === "start") {
      crowd = start(message.spec);
      post({ type: "ready" });
    } else if (crowd === null) throw new Error(`"${message.type}" before "start"`);
    else if (message.type === "joins") for (const answer of message.answers) crowd.acceptJoin(answer);
    else if (message.type === "report") {
      post({
        type: "report",
        report: {
          shoppers: crowd.ownShoppers().map(([index, shopper]) => [index, { ...shopper }]),
          sockets: crowd.sockets,
          loopDelayMs: loop?.stop() ?? { p50: 0, p99: 0, max: 0 },
        },
      });
    } else {
      crowd.close();
      for (const client of clients) client.close();
      process.disconnect();
    }
  } catch (error) {
    post({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  }
});

// The bench gone (it crashed, or was stopped): nothing is left to report to.
process.on("disconnect", () => process.exit(0));
