// A shop's own web server, on another origin than the intake: it serves the checkout page and the SDK as a
// browser gets it, the one minified ES module the build wrote to dist/browser/ (what the size test measures), and
// its session route: the page's getToken() asks it, and it mints the shopper's customer token with the shop's
// server key (POST /v1/customer-sessions), so the key never reaches the browser. A real shop takes the shopper
// from its own login session; this one from the query (GET /session?shopper=...).
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { readBrowserBundle } from "../../scripts/browser-bundle.ts";
import { mintCustomerToken } from "./customer-sessions.ts";

const SHOP_PAGE = new URL("./shop-page.html", import.meta.url);

export interface ShopPageServer {
  /** e.g. http://127.0.0.1:41234: what the intake's CORS_ORIGINS must list. */
  origin: string;
  /** Where /session mints tokens: the intake and the shop's server key (known once the intake runs). */
  useFloodgate(baseUrl: string, serverKey: string): void;
  /** The tokens /session handed out, in order. */
  minted: { shopper: string; token: string }[];
  close(): Promise<void>;
}

export async function startShopPageServer(): Promise<ShopPageServer> {
  const sdk = await readBrowserBundle();
  let floodgate: { baseUrl: string; serverKey: string } | undefined;
  const minted: { shopper: string; token: string }[] = [];
  const server = createServer(async (request, response) => {
    const { pathname, searchParams } = new URL(request.url ?? "/", "http://shop");
    try {
      if (pathname === "/session" && floodgate) {
        const shopper = searchParams.get("shopper") ?? "";
        const session = await mintCustomerToken(floodgate.baseUrl, floodgate.serverKey, shopper);
        minted.push({ shopper, token: session.token });
        response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        response.end(JSON.stringify({ token: session.token, expiresAt: session.expiresAt }));
        return;
      }
      if (pathname === "/") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(await readFile(SHOP_PAGE, "utf8"));
      } else if (pathname === "/sdk/checkout-sdk.js") {
        response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        response.end(sdk);
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      response.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    useFloodgate(baseUrl, serverKey) {
      floodgate = { baseUrl, serverKey };
    },
    minted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
