// The shop's own server the README example talks to, doing what only a server may, with the shop's server key:
// POST /floodgate-session mints the signed-in shopper's customer token; POST /top-ups deposits into that
// shopper's wallet (a real shop would first take the money through its payment provider) and answers once the
// deposit is applied. It also serves the page: GET / and the page's bundle. The signed-in shopper is whoever
// the test says (a real shop's login session). `failTopUps` makes the top-up fail, as a declined card would.
import { createServer, type IncomingMessage } from "node:http";
import { createCheckout } from "../../src/index.ts";
import { mintCustomerToken } from "./customer-sessions.ts";

export interface ExampleShopServer {
  /** e.g. http://127.0.0.1:41234: the intake's CORS_ORIGINS lists it for the page. */
  origin: string;
  /** The intake and the shop's server key, known once the intake runs. */
  useFloodgate(baseUrl: string, serverKey: string): void;
  signIn(shopper: string): void;
  failTopUps: boolean;
  topUps: { shopper: string; amount: number }[];
  /** What GET / and GET /checkout.bundle.js answer. */
  page: { html: string; bundle: string };
  close(): Promise<void>;
}

async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : {};
}

export async function startExampleShopServer(): Promise<ExampleShopServer> {
  let floodgate: { baseUrl: string; serverKey: string } | undefined;
  let shopper = "";
  const shop: Omit<ExampleShopServer, "origin" | "close"> = {
    useFloodgate: (baseUrl, serverKey) => {
      floodgate = { baseUrl, serverKey };
    },
    signIn: (id) => {
      shopper = id;
    },
    failTopUps: false,
    topUps: [],
    page: { html: "", bundle: "" },
  };
  const server = createServer(async (request, response) => {
    const send = (status: number, type: string, body: string) =>
      response.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body);
    try {
      const route = `${request.method} ${new URL(request.url ?? "/", "http://shop").pathname}`;
      if (route === "POST /floodgate-session" && floodgate) {
        const { token, expiresAt } = await mintCustomerToken(floodgate.baseUrl, floodgate.serverKey, shopper);
        return send(200, "application/json", JSON.stringify({ token, expiresAt }));
      }
      if (route === "POST /top-ups" && floodgate) {
        const amount = Number((await jsonBody(request)).amount);
        shop.topUps.push({ shopper, amount });
        if (shop.failTopUps) return send(402, "application/json", JSON.stringify({ error: "card declined" }));
        const serverKey = floodgate.serverKey;
        await createCheckout({ baseUrl: floodgate.baseUrl, getToken: () => serverKey })
          .deposit({ userId: shopper, amount })
          .result({ timeoutMs: 30_000 });
        return send(200, "application/json", "{}");
      }
      if (route === "GET /") return send(200, "text/html; charset=utf-8", shop.page.html);
      if (route === "GET /checkout.bundle.js") return send(200, "text/javascript", shop.page.bundle);
      send(404, "text/plain", "not found");
    } catch (error) {
      send(500, "text/plain", String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(shop, {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
