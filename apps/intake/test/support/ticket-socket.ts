// A waiting-room WebSocket as a test sees it: every message kept in order, and a wait for the next one that
// matches.
import WebSocket from "ws";

export interface TicketMessage {
  type: string;
  position?: number;
  etaSeconds?: number;
  admissionToken?: string;
  expiresAt?: string;
  admittedAt?: string;
  reason?: string;
}

export interface TicketSocket {
  messages: TicketMessage[];
  closed: Promise<{ code: number; reason: string }>;
  next(match: (message: TicketMessage) => boolean, what: string, timeoutMs?: number): Promise<TicketMessage>;
  close(): void;
}

export async function openTicketSocket(
  baseUrl: string,
  roomId: string,
  ticketId: string,
): Promise<TicketSocket> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/v1/rooms/${roomId}/tickets/${ticketId}/ws`);
  const messages: TicketMessage[] = [];
  const waiters = new Set<() => void>();
  socket.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as TicketMessage);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => {
      resolve({ code, reason: String(reason) });
      for (const wake of waiters) wake();
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
    close: () => socket.close(),
  };
}
