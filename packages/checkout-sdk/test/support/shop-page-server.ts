// A shop's own web server, on another origin than the intake: it serves the checkout page and the SDK as a
// browser gets it, the one minified ES module of src/build/browser-bundle.ts (what the size test measures).
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { buildBrowserBundle } from "../../src/build/browser-bundle.ts";

const SHOP_PAGE = new URL("./shop-page.html", import.meta.url);

export interface ShopPageServer {
  /** e.g. http://127.0.0.1:41234: what the intake's CORS_ORIGINS must list. */
  origin: string;
  close(): Promise<void>;
}

export async function startShopPageServer(): Promise<ShopPageServer> {
  const sdk = await buildBrowserBundle();
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://shop");
    try {
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
