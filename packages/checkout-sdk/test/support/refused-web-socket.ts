// A WebSocket implementation that never connects, the way one behind a proxy that refuses upgrades behaves: each
// attempt fails asynchronously with an error and then a close (1006). It counts the attempts.
import type { SocketEvent, WebSocketConstructor, WebSocketLike } from "../../src/index.ts";

type Listener = (event: SocketEvent) => void;

export function refusedWebSocket(): { WebSocket: WebSocketConstructor; attempts(): number } {
  let attempts = 0;
  class RefusedWebSocket implements WebSocketLike {
    readonly #listeners = new Map<string, Listener[]>();

    constructor(_url: string) {
      attempts++;
      setTimeout(() => {
        this.#emit("error", {});
        this.#emit("close", { code: 1006 });
      }, 0);
    }

    addEventListener(type: string, listener: Listener): void {
      this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
    }

    close(): void {}

    #emit(type: string, event: SocketEvent) {
      for (const listener of this.#listeners.get(type) ?? []) listener(event);
    }
  }
  return { WebSocket: RefusedWebSocket, attempts: () => attempts };
}
