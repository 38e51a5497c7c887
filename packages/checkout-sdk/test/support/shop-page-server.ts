// A shop's own web server, on another origin than the intake: it serves the checkout page and the SDK's source
// as the browser loads it, each .ts file turned into JavaScript by Node's own type stripping (no bundler). The
// SDK's relative imports keep their .ts names, which this same route answers.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { stripTypeScriptTypes } from "node:module";

const SDK_SOURCE = new URL("../../src/", import.meta.url);
const SHOP_PAGE = new URL("./shop-page.html", import.meta.url);
const SDK_FILE = /^\/sdk\/([a-z0-9-]+\.ts)$/;

export interface ShopPageServer {
  /** e.g. http://127.0.0.1:41234: what the intake's CORS_ORIGINS must list. */
  origin: string;
  close(): Promise<void>;
}

export async function startShopPageServer(): Promise<ShopPageServer> {
  const server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://shop");
    try {
      if (pathname === "/") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(await readFile(SHOP_PAGE, "utf8"));
        return;
      }
      const sdkFile = SDK_FILE.exec(pathname)?.[1];
      if (sdkFile) {
        const source = await readFile(new URL(sdkFile, SDK_SOURCE), "utf8");
        response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        response.end(stripTypeScriptTypes(source));
        return;
      }
      response.writeHead(404).end();
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
