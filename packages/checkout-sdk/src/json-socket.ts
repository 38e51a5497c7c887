// One WebSocket carrying the server's JSON messages, and one report when it ends on its own (closed, failed, or
// could not even be created). Reconnecting or falling back to polling is the caller's decision (live-watch.ts).

/** The part of the standard WebSocket the SDK uses: the browser's, Node 22+'s global, or a compatible one. */
export interface WebSocketLike {
  close(code?: number, reason?: string): void;
  addEventListener(type: "message" | "close" | "error", listener: (event: SocketEvent) => void): void;
}

export interface SocketEvent {
  data?: unknown;
  code?: number;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface JsonSocket {
  /** Closes it; onEnd is not called after this. */
  close(): void;
}

/** onEnd(heardFrom): the socket ended without close() being called; heardFrom: it delivered a message first. */
export function openJsonSocket(
  WebSocket: WebSocketConstructor,
  url: string,
  onMessage: (message: Record<string, unknown>) => void,
  onEnd: (heardFrom: boolean) => void,
): JsonSocket {
  let ended = false;
  let heardFrom = false;
  let socket: WebSocketLike | undefined;
  const end = () => {
    if (!ended) onEnd(heardFrom);
    ended = true;
    socket?.close();
  };
  try {
    socket = new WebSocket(url);
    socket.addEventListener("message", (event) => {
      let message: unknown;
      try {
        message = JSON.parse(event.data as string);
      } catch {
        // A frame that is not JSON is not one of ours; the next one will be.
      }
      if (ended || !message || typeof message !== "object") return;
      heardFrom = true;
      onMessage(message as Record<string, unknown>);
    });
    socket.addEventListener("close", end);
    socket.addEventListener("error", end);
  } catch {
    // Blocked by a policy or a bad URL: a failed attempt like any other, reported asynchronously as the events
    // of a socket would be.
    setTimeout(end);
  }
  return {
    close() {
      ended = true;
      socket?.close(1000);
    },
  };
}
