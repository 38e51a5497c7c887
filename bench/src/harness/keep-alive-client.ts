// Requests that are not a paced load (the pollers' GETs, the admitted users' payments, the probes): node:http
// over a bounded pool of keep-alive connections. fetch would do, at several times the CPU per request, and
// the load generator shares its CPUs with the system it measures.
import { Agent, request } from "node:http";

export interface ClientAnswer {
  status: number;
  body: string;
  /** ms from sending to the whole answer. */
  latencyMs: number;
}

export class KeepAliveClient {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;

  constructor(baseUrl: string, connections: number) {
    const url = new URL(baseUrl);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ClientAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.#host,
          port: this.#port,
          method,
          path,
          agent: this.#agent,
          headers: payload === undefined ? headers : { "content-type": "application/json", ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString("utf8"),
              latencyMs: performance.now() - started,
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
