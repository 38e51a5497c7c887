// The worker thread that runs the shoppers' watching and paying (flash-sale-watchers.ts) for the Crowd on the
// main thread, which paces and times the joins. Messages in: {type: "joined", index, status, body} per answered
// join, {type: "snapshot"}, {type: "close"}. Messages out: {type: "token", token} (a real admission token, for
// the probe; at most a few a second), {type: "settled"} once every shopper has paid or will not,
// {type: "snapshot", shoppers, sockets} (the watch fields of every shopper), {type: "closed"}.
import { parentPort, workerData } from "node:worker_threads";
import { ShopperWatchers, WATCH_FIELDS, type WatcherOptions } from "./flash-sale-watchers.ts";

const TOKEN_EVERY_MS = 200;

if (!parentPort) throw new Error("flash-sale-watcher-thread.ts runs as a worker thread");
const port = parentPort;
let tokenSentAt = 0;
const watchers = new ShopperWatchers(workerData as WatcherOptions, {
  onToken: (token) => {
    const now = Date.now();
    if (now - tokenSentAt < TOKEN_EVERY_MS) return;
    tokenSentAt = now;
    port.postMessage({ type: "token", token });
  },
  onSettled: () => port.postMessage({ type: "settled" }),
});

port.on("message", (message: { type: string; index?: number; status?: number; body?: string }) => {
  if (message.type === "joined") {
    watchers.joined(message.index!, message.status!, message.body!);
  } else if (message.type === "snapshot") {
    const shoppers = watchers.shoppers.map((shopper) =>
      Object.fromEntries(WATCH_FIELDS.map((field) => [field, shopper[field]])),
    );
    port.postMessage({ type: "snapshot", shoppers, sockets: watchers.sockets });
  } else if (message.type === "close") {
    watchers.close();
    port.postMessage({ type: "closed" });
  }
});
