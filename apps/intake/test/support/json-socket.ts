// A WebSocket as a test sees it: every JSON message kept in order, the close it ended with, and a wait for the
// next message that matches (failing with what it got when the socket closes or the time runs out).
import WebSocket from "ws";

export interface JsonSocket<M> {
  messages: M[];
  closed: Promise<{ code: number; reason: string }>;
  next(match: (message: M) => boolean, what: string, timeoutMs?: number): Promise<M>;
  /** True while the connection is open: neither side has begun to close it. */
  isOpen(): boolean;
  close(): void;
}

/** The URL with the caller's credential in `?access_token=` (a browser's WebSocket cannot set headers). */
export const withAccessToken = (url: string, accessToken: string): string =>
  `${url}${url.includes("?") ? "&" : "?"}access_token=${encodeURIComponent(accessToken)}`;

export async function openJsonSocket<M>(url: string): Promise<JsonSocket<M>> {
  const socket = new WebSocket(url);
  const messages: M[] = [];
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of waiters) wake();
  };
  socket.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as M);
    wakeAll();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => {
      resolve({ code, reason: String(reason) });
      wakeAll();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  let read = 0;
  return {
    messages,
    closed,
    async next(match, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (read < messages.length) {
          const message = messages[read++]!;
          if (match(message)) return message;
        }
        if (socket.readyState === WebSocket.CLOSED)
          throw new Error(`socket closed before ${what}; got ${JSON.stringify(messages)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    isOpen: () => socket.readyState === WebSocket.OPEN,
    close: () => socket.close(),
  };
}
