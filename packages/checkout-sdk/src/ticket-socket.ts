// One WebSocket to a ticket: the server's JSON messages parsed, and one report when the socket ends on its own
// (closed, failed, or could not even be created). Reconnecting is the caller's decision (admission-watch.ts).

/** The part of the standard WebSocket the SDK uses: the browser's, Node 22+'s global, or a compatible one. */
export interface WebSocketLike {
  close(code?: number, reason?: string): void;
  addEventListener(
    type: "open" | "message" | "close" | "error",
    listener: (event: SocketEvent) => void,
  ): void;
}

export interface SocketEvent {
  data?: unknown;
  code?: number;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export type TicketSocketMessage =
  | { type: "position"; position: number; etaSeconds: number }
  | { type: "admitted"; admissionToken: string; expiresAt: string; admittedAt: string }
  | { type: "expired"; reason: "expired" | "abandoned" | "revoked" }
  | { type: "error"; code: string; detail?: string };

export interface TicketSocketHandlers {
  onMessage(message: TicketSocketMessage): void;
  /** The socket ended without close() being called; heardFrom: it delivered at least one message first. */
  onEnd(heardFrom: boolean): void;
}

export interface TicketSocket {
  /** Closes it; onEnd is not called after this. */
  close(): void;
}

export function openTicketSocket(
  WebSocket: WebSocketConstructor,
  url: string,
  handlers: TicketSocketHandlers,
): TicketSocket {
  let ended = false;
  let heardFrom = false;
  const end = () => {
    if (ended) return;
    ended = true;
    handlers.onEnd(heardFrom);
  };
  let socket: WebSocketLike;
  try {
    socket = new WebSocket(url);
  } catch {
    // Blocked by a policy or a bad URL: a failed attempt like any other, reported asynchronously as the
    // events of a socket would be.
    queueMicrotask(end);
    return {
      close() {
        ended = true;
      },
    };
  }
  socket.addEventListener("message", (event) => {
    if (ended) return;
    const message = parseMessage(event.data);
    if (!message) return;
    heardFrom = true;
    handlers.onMessage(message);
  });
  socket.addEventListener("close", end);
  socket.addEventListener("error", () => {
    end();
    socket.close();
  });
  return {
    close() {
      if (ended) return;
      ended = true;
      socket.close(1000, "done");
    },
  };
}

function parseMessage(data: unknown): TicketSocketMessage | undefined {
  if (typeof data !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(data);
    if (
      message !== null &&
      typeof message === "object" &&
      typeof (message as { type?: unknown }).type === "string"
    )
      return message as TicketSocketMessage;
  } catch {
    // A frame that is not JSON is not one of ours; the next one will be.
  }
  return undefined;
}
