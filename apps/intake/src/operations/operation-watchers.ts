// The operation sockets this process holds, grouped by the id they watch. A socket is registered before its
// first read, so a change published while that read runs triggers another: nothing is missed. A change
// message for an id re-reads its view once for all of its sockets (reads of one id never overlap, so an older
// view cannot overtake a newer one); each socket gets a view only when it differs from the last it got, and
// is closed 1000 after a final one.

import type { Gauge } from "@floodgate/metrics";
import type { FastifyBaseLogger } from "fastify";
import type { WebSocket } from "ws";
import type { Caller } from "../auth/caller.ts";
import { type AnyOperationView, isFinal } from "./operation-views.ts";
import { refusalMessage, socketRefusal } from "./socket-problem.ts";

const PING_EVERY_MS = 30_000;

interface SocketState {
  /** The last message sent, to skip a re-read that found nothing new. */
  sent: string | null;
  /** Answered the last ping (a closed laptop sends no FIN). */
  alive: boolean;
  instance: string;
  /** The upgrade's request id, which a refusal's problem carries. */
  requestId?: string;
}

interface Watch {
  id: string;
  sockets: Map<WebSocket, SocketState>;
  reading: boolean;
  /** A change arrived while a read ran: read again after it. */
  again: boolean;
}

export interface OperationWatcherDeps {
  /** The id whose view a socket on this id follows (ProblemError 400/404 when there is none). */
  watchedIdOf(id: string, caller: Caller): Promise<string>;
  read(watchedId: string): Promise<AnyOperationView>;
  /** Resolves true once the status channel is subscribed (false if it is not within a moment). */
  whenSubscribed(): Promise<boolean>;
  gauge: Gauge;
  log: FastifyBaseLogger;
}

export class OperationWatchers {
  readonly #deps: OperationWatcherDeps;
  readonly #watches = new Map<string, Watch>();
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: OperationWatcherDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#timer = setInterval(() => this.#ping(), PING_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
    for (const watch of this.#watches.values()) {
      for (const socket of watch.sockets.keys()) socket.close(1001, "intake shutting down");
    }
  }

  /** A new socket for `id`: it gets the current view at once, then each change until a final one. */
  async attach(
    socket: WebSocket,
    id: string,
    instance: string,
    caller: Caller,
    requestId?: string,
  ): Promise<void> {
    let watchedId: string;
    try {
      // Subscribed first, then read: a change published after this point reaches the watch.
      if (!(await this.#deps.whenSubscribed())) throw new Error("status channel not subscribed");
      watchedId = await this.#deps.watchedIdOf(id, caller);
    } catch (error) {
      this.#refuse(socket, error, instance, requestId);
      return;
    }
    if (socket.readyState !== socket.OPEN) return; // the client left meanwhile
    let watch = this.#watches.get(watchedId);
    if (!watch) {
      watch = { id: watchedId, sockets: new Map(), reading: false, again: false };
      this.#watches.set(watchedId, watch);
    }
    const state: SocketState = { sent: null, alive: true, instance, requestId };
    watch.sockets.set(socket, state);
    this.#deps.gauge.inc();
    const owner = watch;
    socket.on("close", () => this.#remove(owner, socket));
    socket.on("error", () => this.#remove(owner, socket));
    socket.on("pong", () => {
      state.alive = true;
    });
    void this.#refresh(watch);
  }

  /** Ids named on the status channel: re-read the ones this process watches. */
  changed(ids: Iterable<string>): void {
    for (const id of ids) {
      const watch = this.#watches.get(id);
      if (watch) void this.#refresh(watch);
    }
  }

  /** After the subscription came back from a reconnect: changes published meanwhile were not heard. */
  refreshAll(): void {
    for (const watch of this.#watches.values()) void this.#refresh(watch);
  }

  async #refresh(watch: Watch): Promise<void> {
    if (watch.reading) {
      watch.again = true;
      return;
    }
    watch.reading = true;
    try {
      do {
        watch.again = false;
        let view: AnyOperationView;
        try {
          view = await this.#deps.read(watch.id);
        } catch (error) {
          for (const [socket, state] of watch.sockets)
            this.#refuse(socket, error, state.instance, state.requestId);
          this.#drop(watch);
          return;
        }
        this.#deliver(watch, view);
      } while (watch.again && watch.sockets.size > 0);
    } finally {
      watch.reading = false;
    }
  }

  #deliver(watch: Watch, view: AnyOperationView): void {
    const message = JSON.stringify({ type: "status", operation: view });
    const final = isFinal(view);
    for (const [socket, state] of watch.sockets) {
      if (state.sent !== message && socket.readyState === socket.OPEN) {
        socket.send(message);
        state.sent = message;
      }
      if (final) socket.close(1000, view.status);
    }
    if (final) this.#drop(watch);
  }

  #refuse(socket: WebSocket, error: unknown, instance: string, requestId?: string): void {
    const refusal = socketRefusal(error, instance, requestId);
    if (refusal === null) {
      this.#deps.log.warn({ err: (error as Error).message }, "operation socket: cannot read the status");
      socket.close(1011, "try again");
      return;
    }
    if (socket.readyState === socket.OPEN) {
      socket.send(refusalMessage(refusal));
    }
    socket.close(refusal.closeCode, String(refusal.problem.code));
  }

  /** Forgets a watch whose sockets were all closed by the server (its gauge count goes with them). */
  #drop(watch: Watch): void {
    this.#deps.gauge.dec(watch.sockets.size);
    watch.sockets.clear();
    if (this.#watches.get(watch.id) === watch) this.#watches.delete(watch.id);
  }

  #remove(watch: Watch, socket: WebSocket): void {
    if (!watch.sockets.delete(socket)) return;
    this.#deps.gauge.dec();
    if (watch.sockets.size === 0 && this.#watches.get(watch.id) === watch) this.#watches.delete(watch.id);
  }

  #ping(): void {
    for (const watch of this.#watches.values()) {
      for (const [socket, state] of watch.sockets) {
        if (!state.alive) {
          socket.terminate();
          this.#remove(watch, socket);
          continue;
        }
        state.alive = false;
        socket.ping();
      }
    }
  }
}
