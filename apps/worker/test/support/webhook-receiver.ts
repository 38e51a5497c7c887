// A real HTTP receiver on a free local port for the webhook tests: it verifies each delivery's signature with
// @floodgate/node (as a shop would; either scheme) or the verifier a test gives (the third-party
// `standardwebhooks` package), records what arrived, and can refuse (503) or hold requests on demand.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import { verifyWebhook, type WebhookEvent } from "@floodgate/node";

/** Checks one delivery as a shop's handler would: the event, or a throw. */
export type WebhookVerifier = (body: string, headers: IncomingHttpHeaders, secret: string) => WebhookEvent;

const floodgateNode: WebhookVerifier = (payload, headers, secret) =>
  verifyWebhook({ payload, headers, secret });

export interface ReceivedDelivery {
  event: WebhookEvent;
  /** webhook-id (Standard Webhooks) or Floodgate-Event-Id, whichever came. */
  eventIdHeader: string | undefined;
  /** What the receiver answered. */
  status: number;
  /** The bytes and headers as they came, for a test to verify again (with another secret). */
  body: string;
  headers: IncomingHttpHeaders;
}

export interface WebhookReceiver {
  url: string;
  /** Every request whose signature verified, whatever the receiver answered. */
  received: ReceivedDelivery[];
  /** Requests whose signature did not verify (none expected). */
  forged: string[];
  /** Accepted (2xx) deliveries per event id. */
  acceptedCount(eventId: string): number;
  accepted(): WebhookEvent[];
  /** Requests being held right now (mode "hold"). */
  readonly holding: number;
  /** ok: 200 at once; down: 503 at once; hold: 200 once the test calls release() (a receiver that hangs). */
  mode: "ok" | "down" | "hold";
  /** Answers every request held so far (and those that come in hold mode later wait for the next release). */
  release(): void;
  setSecret(secret: string): void;
  /** The shop's handler changed (a new way to verify). */
  setVerifier(verify: WebhookVerifier): void;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });

export async function startWebhookReceiver(
  verifier: WebhookVerifier = floodgateNode,
): Promise<WebhookReceiver> {
  let verify = verifier;
  let secret = "";
  let holding = 0;
  const newGate = () => {
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    return { promise, resolve };
  };
  let gate = newGate();
  const received: ReceivedDelivery[] = [];
  const forged: string[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    received,
    forged,
    acceptedCount: (eventId) =>
      received.filter((d) => d.event.id === eventId && d.status >= 200 && d.status < 300).length,
    accepted: () => received.filter((d) => d.status === 200).map((d) => d.event),
    get holding() {
      return holding;
    },
    mode: "ok",
    release() {
      const open = gate;
      gate = newGate();
      open.resolve();
    },
    setSecret(value) {
      secret = value;
    },
    setVerifier(value) {
      verify = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    let event: WebhookEvent;
    try {
      event = verify(body, request.headers, secret);
    } catch (error) {
      forged.push(`${(error as Error).message}: ${body.slice(0, 100)}`);
      response.writeHead(400).end();
      return;
    }
    const eventIdHeader = (request.headers["webhook-id"] ?? request.headers["floodgate-event-id"]) as
      | string
      | undefined;
    const raw = { body, headers: request.headers };
    if (receiver.mode === "down") {
      received.push({ event, eventIdHeader, status: 503, ...raw });
      response.writeHead(503).end();
      return;
    }
    if (receiver.mode === "hold") {
      holding += 1;
      await gate.promise;
      holding -= 1;
    }
    received.push({ event, eventIdHeader, status: 200, ...raw });
    response.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${port}/webhooks`;
  return receiver;
}
