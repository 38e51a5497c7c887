// The body of the join thread (join-thread.ts): runs the shoppers' joins with autocannon and posts each answer
// back, a batch per turn of this thread's event loop. Nothing else runs on this loop, so the response times
// autocannon reads here are the server's and the network's.
import { parentPort, workerData } from "node:worker_threads";
import type { Request } from "autocannon";
import { type LoadOutcome, runLoad } from "../harness/load-runner.ts";

export interface JoinLoadSpec {
  label: string;
  url: string;
  roomId: string;
  userIds: string[];
  /** Each shopper's customer token, by index (null with AUTH=off): the join is the shopper's own. */
  tokens: (string | null)[];
  connections: number;
  rate: number;
  slices: number;
}

export interface JoinAnswer {
  /** The shopper's index in userIds. */
  index: number;
  status: number;
  body: string;
  /** Epoch ms the request was built (an upper bound on its send) and its answer read, on this thread. */
  builtAt: number;
  answeredAt: number;
}

export type JoinThreadMessage =
  | { type: "answers"; answers: JoinAnswer[] }
  | { type: "done"; outcome: LoadOutcome }
  | { type: "failed"; message: string };

const port = parentPort;
if (port === null) throw new Error("join-thread-entry.ts runs as a worker thread (see join-thread.ts)");
const spec = workerData as JoinLoadSpec;

let pending: JoinAnswer[] = [];
const flush = () => {
  const answers = pending;
  pending = [];
  port.postMessage({ type: "answers", answers } satisfies JoinThreadMessage);
};

const builtAt = new Array<number>(spec.userIds.length).fill(0);
let next = 0;
const request: Request = {
  method: "POST",
  path: `/v1/rooms/${spec.roomId}/tickets`,
  setupRequest: (built, context) => {
    // Modulo: autocannon may build one request per connection more than it sends.
    const index = next++ % spec.userIds.length;
    context.index = index;
    builtAt[index] = Date.now();
    const token = spec.tokens[index] ?? null;
    return {
      ...built,
      headers: {
        "content-type": "application/json",
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify({ userId: spec.userIds[index] }),
    };
  },
  onResponse: (status, body, context) => {
    const index = Number(context.index);
    if (pending.length === 0) setImmediate(flush);
    pending.push({ index, status, body, builtAt: builtAt[index] ?? 0, answeredAt: Date.now() });
  },
};

try {
  const outcome = await runLoad({
    label: spec.label,
    url: spec.url,
    connections: spec.connections,
    rate: spec.rate,
    slices: spec.slices,
    amount: spec.userIds.length,
    request,
  });
  if (pending.length > 0) flush();
  port.postMessage({ type: "done", outcome } satisfies JoinThreadMessage);
} catch (error) {
  port.postMessage({ type: "failed", message: String(error) } satisfies JoinThreadMessage);
}
