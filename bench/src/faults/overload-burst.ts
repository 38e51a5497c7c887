// The overload fault's generator: POST /v1/payments offered OPEN LOOP (arrivals are due by the clock, never
// wait for answers) at tens of thousands per second from one thread. Raw sockets, keep-alive, requests
// pipelined: each tick (10 ms) the due arrivals are spread round robin over the connections and each connection
// gets ONE write of its tick's requests (the batching cork/uncork would give). Requests are pre-built strings
// (burst-request-template.ts), answers read minimally (burst-response-parser.ts). Only counts are kept, plus the
// 2xx ids, packed (burst-id-list.ts). A connection with `maxUnanswered` requests waiting sends no more: new
// arrivals for it are counted `notSent` (shed by the generator, reported) instead of queued without bound.
// An answer not there `timeoutMs` after its request is a timeout; as answers come in order on a connection,
// everything behind it waits too: the connection is dropped and all its unanswered requests count as timeouts.
import { connect, type Socket } from "node:net";
import { BurstIdList } from "./burst-id-list.ts";
import { arrivalSlot, arrivalsDue, histogramPercentile } from "./burst-pacing.ts";
import { type BurstUser, burstTemplate } from "./burst-request-template.ts";
import { idRange, ResponseParser } from "./burst-response-parser.ts";

export interface BurstOptions {
  host: string;
  port: number;
  users: readonly BurstUser[];
  keyPrefix: string;
  /** Every payment's amount: tells this burst's rows apart on the shards. */
  amount: number;
  connections: number;
  maxUnanswered: number;
  timeoutMs: number;
  tickMs: number;
}

export const BURST_DEFAULTS = { maxUnanswered: 256, timeoutMs: 10_000, tickMs: 10 } as const;

export interface BurstCounts {
  /** Arrivals due by the pace (sent + notSent). */
  arrivals: number;
  sent: number;
  notSent: number;
  answered: number;
  statuses: Record<string, number>;
  /** The first body of each non-2xx status (cut at 300 bytes): what the refusals said. */
  firstBodies: Record<string, string>;
  /** 429 and 503 answers, and how many carried Retry-After. */
  refusals: number;
  refusalsWithRetryAfter: number;
  /** 2xx answers whose body named no id. */
  acceptedWithoutId: number;
  timeouts: number;
  /**
   * 503 service_unavailable answers: the intake lost its answer from Redis (a timeout, a dropped connection) or
   * Redis refused; it cannot tell the first from a stored request, so neither can the audit (outcome unknown).
   */
  storeUnavailable: number;
  /** Requests on a connection that closed or failed before their answer (outcome unknown). */
  socketErrors: number;
  /** Answers that could not be read (the connection was closed), with the first reason. */
  unparseable: number;
  unparseableReason: string | null;
  connectionsOpened: number;
  bytesSent: number;
  bytesReceived: number;
}

export interface BurstStepReport {
  targetRate: number;
  seconds: number;
  /** Sent, answered and 2xx per second over the pacing seconds (from the whole step's counts). */
  sentRate: number;
  answeredRate: number;
  acceptedRate: number;
  counts: BurstCounts;
  /** Per second from the step's start (answers may land after the pacing ended). */
  perSecond: { sent: number[]; notSent: number[]; answered: number[]; accepted: number[] };
  latencyMs: { p50: number | null; p99: number | null; max: number | null };
  /** This thread's cpu over the step (pacing and the wait for the last answers). */
  cpu: { userMs: number; systemMs: number; wallMs: number; percentOfOneCore: number };
  heapUsedMiB: number;
}

/** The problem code of a 503 whose request may have been stored (apps/intake problem-plugin.ts). */
const STORE_UNAVAILABLE = Buffer.from('"code":"service_unavailable"');

const emptyCounts = (): BurstCounts => ({
  arrivals: 0,
  sent: 0,
  notSent: 0,
  answered: 0,
  statuses: {},
  firstBodies: {},
  refusals: 0,
  refusalsWithRetryAfter: 0,
  acceptedWithoutId: 0,
  timeouts: 0,
  storeUnavailable: 0,
  socketErrors: 0,
  unparseable: 0,
  unparseableReason: null,
  connectionsOpened: 0,
  bytesSent: 0,
  bytesReceived: 0,
});

/** Send times of a connection's unanswered requests, oldest first, in a ring of `maxUnanswered`. */
class SentTimes {
  readonly #times: Float64Array;
  #head = 0;
  count = 0;
  constructor(capacity: number) {
    this.#times = new Float64Array(capacity);
  }
  push(ms: number): void {
    this.#times[(this.#head + this.count++) % this.#times.length] = ms;
  }
  shift(): number {
    const ms = this.#times[this.#head]!;
    this.#head = (this.#head + 1) % this.#times.length;
    this.count--;
    return ms;
  }
  oldest(): number {
    return this.#times[this.#head]!;
  }
  clear(): number {
    const n = this.count;
    this.count = 0;
    return n;
  }
}

interface Connection {
  socket: Socket | null;
  parser: ResponseParser;
  sent: SentTimes;
  /** This tick's requests, written at the tick's end in one write. */
  batch: string;
  /** The server said `Connection: close`, or the socket failed: nothing more is written to it. */
  closing: boolean;
  /** After a failed connection, no new one before this (performance.now ms). */
  reconnectAt: number;
}

const threadCpu = (): NodeJS.CpuUsage =>
  typeof process.threadCpuUsage === "function" ? process.threadCpuUsage() : process.cpuUsage();

export class OverloadBurst {
  /** Every 2xx id, over all the steps. */
  readonly ids = new BurstIdList();
  readonly #options: BurstOptions;
  readonly #template;
  readonly #connections: Connection[];
  #nextKey = 0;
  #inFlight = 0;
  #counts = emptyCounts();
  #latency: Uint32Array;
  #stepStart = 0;
  #perSecond = {
    sent: [] as number[],
    notSent: [] as number[],
    answered: [] as number[],
    accepted: [] as number[],
  };

  constructor(options: BurstOptions) {
    this.#options = options;
    this.#template = burstTemplate(options);
    this.#latency = new Uint32Array(options.timeoutMs + 1);
    this.#connections = Array.from({ length: options.connections }, () => ({
      socket: null,
      parser: new ResponseParser(),
      sent: new SentTimes(options.maxUnanswered),
      batch: "",
      closing: false,
      reconnectAt: 0,
    }));
  }

  /** Offers `rate` requests/s for `seconds`, then waits for every answer (or its timeout). */
  run(rate: number, seconds: number): Promise<BurstStepReport> {
    this.#counts = emptyCounts();
    this.#latency.fill(0);
    this.#perSecond = { sent: [], notSent: [], answered: [], accepted: [] };
    const cpuStart = threadCpu();
    const started = performance.now();
    this.#stepStart = started;
    const pacingMs = seconds * 1000;
    let arrivals = 0;
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        const now = performance.now();
        const due = arrivalsDue(Math.min(now - started, pacingMs), rate);
        for (; arrivals < due; arrivals++) this.#arrive(arrivals, now);
        for (const connection of this.#connections) this.#flush(connection);
        this.#expire(now);
        if (now - started >= pacingMs && this.#inFlight === 0) {
          clearInterval(timer);
          const cpu = threadCpu();
          const wallMs = performance.now() - started;
          const userMs = (cpu.user - cpuStart.user) / 1000;
          const systemMs = (cpu.system - cpuStart.system) / 1000;
          resolve(this.#report(rate, seconds, { userMs, systemMs, wallMs }));
        }
      }, this.#options.tickMs);
    });
  }

  close(): void {
    for (const connection of this.#connections) {
      connection.sent.clear();
      connection.socket?.destroy();
      connection.socket = null;
    }
    this.#inFlight = 0;
  }

  #second(now: number): number {
    return Math.floor((now - this.#stepStart) / 1000);
  }

  #bump(series: number[], now: number, n = 1): void {
    const second = this.#second(now);
    while (series.length <= second) series.push(0);
    series[second]! += n;
  }

  #arrive(index: number, now: number): void {
    this.#counts.arrivals++;
    const slot = arrivalSlot(index, this.#connections.length, this.#template.users);
    const connection = this.#connections[slot.connection]!;
    if (
      connection.sent.count >= this.#options.maxUnanswered ||
      connection.closing ||
      (connection.socket === null && now < connection.reconnectAt)
    ) {
      this.#counts.notSent++;
      this.#bump(this.#perSecond.notSent, now);
      return;
    }
    connection.batch += this.#template.request(slot.user, this.#nextKey++);
    connection.sent.push(now);
    this.#inFlight++;
    this.#counts.sent++;
    this.#bump(this.#perSecond.sent, now);
  }

  #flush(connection: Connection): void {
    if (connection.batch === "") return;
    const socket = connection.socket ?? this.#open(connection);
    this.#counts.bytesSent += connection.batch.length;
    socket.write(connection.batch, "latin1");
    connection.batch = "";
  }

  #open(connection: Connection): Socket {
    const socket = connect({ host: this.#options.host, port: this.#options.port, noDelay: true });
    this.#counts.connectionsOpened++;
    connection.socket = socket;
    connection.parser = new ResponseParser();
    connection.closing = false;
    socket.on("data", (chunk: Buffer) => this.#read(connection, socket, chunk));
    socket.on("error", () => {
      connection.reconnectAt = performance.now() + 100;
    });
    socket.on("close", () => {
      if (connection.socket !== socket) return;
      const lost = connection.sent.clear();
      this.#inFlight -= lost;
      this.#counts.socketErrors += lost;
      connection.socket = null;
      connection.closing = false;
    });
    return socket;
  }

  #read(connection: Connection, socket: Socket, chunk: Buffer): void {
    if (connection.socket !== socket) return;
    const now = performance.now();
    this.#counts.bytesReceived += chunk.length;
    const problem = connection.parser.feed(chunk, (status, retryAfter, close, data, bodyStart, bodyEnd) => {
      if (connection.sent.count === 0) return; // an answer to nothing we sent: ignored
      const latency = Math.min(this.#latency.length - 1, Math.floor(now - connection.sent.shift()));
      this.#latency[latency]!++;
      this.#inFlight--;
      const counts = this.#counts;
      counts.answered++;
      counts.statuses[status] = (counts.statuses[status] ?? 0) + 1;
      this.#bump(this.#perSecond.answered, now);
      if (status >= 200 && status < 300) {
        this.#bump(this.#perSecond.accepted, now);
        const range = idRange(data, bodyStart, bodyEnd);
        if (range === null) counts.acceptedWithoutId++;
        else this.ids.push(data, range[0], range[1]);
      } else {
        counts.firstBodies[status] ??= data.toString("utf8", bodyStart, Math.min(bodyEnd, bodyStart + 300));
        if (status === 429 || status === 503) {
          counts.refusals++;
          if (retryAfter) counts.refusalsWithRetryAfter++;
        }
        if (status === 503 && data.subarray(bodyStart, bodyEnd).includes(STORE_UNAVAILABLE)) {
          counts.storeUnavailable++;
        }
      }
      if (close) connection.closing = true;
    });
    if (problem !== null) {
      this.#counts.unparseable++;
      this.#counts.unparseableReason ??= problem;
      connection.closing = true;
      socket.destroy();
    }
  }

  /** Drops the connections whose oldest unanswered request is past the timeout (see the header). */
  #expire(now: number): void {
    for (const connection of this.#connections) {
      if (connection.sent.count === 0 || now - connection.sent.oldest() < this.#options.timeoutMs) continue;
      const expired = connection.sent.clear();
      this.#inFlight -= expired;
      this.#counts.timeouts += expired;
      const socket = connection.socket;
      connection.socket = null;
      socket?.destroy();
    }
  }

  #report(rate: number, seconds: number, cpu: { userMs: number; systemMs: number; wallMs: number }) {
    const counts = this.#counts;
    const accepted = Object.entries(counts.statuses)
      .filter(([status]) => Number(status) >= 200 && Number(status) < 300)
      .reduce((sum, [, n]) => sum + n, 0);
    let max: number | null = null;
    for (let i = this.#latency.length - 1; i >= 0 && max === null; i--)
      if (this.#latency[i]! > 0) max = i + 1;
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      targetRate: rate,
      seconds,
      sentRate: Math.round(counts.sent / seconds),
      answeredRate: Math.round(counts.answered / seconds),
      acceptedRate: Math.round(accepted / seconds),
      counts,
      perSecond: this.#perSecond,
      latencyMs: {
        p50: histogramPercentile(this.#latency, 0.5),
        p99: histogramPercentile(this.#latency, 0.99),
        max,
      },
      cpu: {
        userMs: round(cpu.userMs),
        systemMs: round(cpu.systemMs),
        wallMs: round(cpu.wallMs),
        percentOfOneCore: round((100 * (cpu.userMs + cpu.systemMs)) / cpu.wallMs),
      },
      heapUsedMiB: round(process.memoryUsage().heapUsed / 2 ** 20),
    } satisfies BurstStepReport;
  }
}
