// A shop's own web server (node:http) with its product page behind a Floodgate room through @floodgate/node's
// gate, installed from its npm pack tarball as a shop installs it: /product is gated, /queue is the room page
// (it queues on load with the SDK's joinRoom and, once admitted, goes through the gate's /.floodgate/admit),
// /sdk/checkout-sdk.js is the SDK's browser bundle, and /session mints the signed-in shopper's customer token
// with the shop's server key (the shopper is the `shopper` cookie, standing in for the shop's login session).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { packPackage, scratchProject } from "@floodgate/test-fixtures/packed-package";

const ROOM_PAGE = new URL("./room-page.html", import.meta.url);
const require = createRequire(import.meta.url);

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** The part of @floodgate/node this shop uses (this app does not depend on the package: it installs the tarball). */
interface FloodgateNode {
  admissionGate(options: {
    jwksUrl: string;
    roomId: string;
    roomUrl: string;
    secureCookie?: boolean;
    protect?: (request: { path: string }) => boolean;
  }): { node(handler: Handler): Handler };
  admissionOf(request: IncomingMessage): { userId: string; ticketId: string } | null;
}

export interface GatedShop {
  /** e.g. http://127.0.0.1:41234: what the intake's CORS_ORIGINS must list. */
  origin: string;
  /** Gates /product behind `roomId` of this intake (its JWKS), and lets /session mint with the server key. */
  useFloodgate(intakeUrl: string, serverKey: string, roomId: string): void;
  close(): Promise<void>;
}

export async function startGatedShop(): Promise<GatedShop> {
  const packDir = await mkdtemp(join(tmpdir(), "floodgate-node-pack-"));
  const packed = await packPackage(new URL("../../../../packages/node/", import.meta.url), packDir);
  const project = await scratchProject(packed.tarball, process.execPath);
  const floodgate = (await import(
    pathToFileURL(join(project.dir, "node_modules/@floodgate/node/dist/index.js")).href
  )) as FloodgateNode;
  const sdk = await readFile(require.resolve("@floodgate/checkout-sdk/browser"));
  let intake: { url: string; serverKey: string } | undefined;
  let gated: Handler | undefined;

  const pages: Handler = async (request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://shop");
    try {
      if (pathname === "/product") {
        const shopper = floodgate.admissionOf(request)?.userId;
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        response.end(
          `<!doctype html><title>The drop</title><h1>The drop</h1><p id="shopper">for ${shopper}</p>`,
        );
      } else if (pathname === "/queue") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        response.end(await readFile(ROOM_PAGE, "utf8"));
      } else if (pathname === "/sdk/checkout-sdk.js") {
        response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
        response.end(sdk);
      } else if (pathname === "/session" && intake) {
        const userId = /(?:^|;\s*)shopper=([\w-]+)/.exec(request.headers.cookie ?? "")?.[1] ?? "";
        const minted = await fetch(`${intake.url}/v1/customer-sessions`, {
          method: "POST",
          headers: { authorization: `Bearer ${intake.serverKey}`, "content-type": "application/json" },
          body: JSON.stringify({ userId }),
        });
        response.writeHead(minted.status, {
          "content-type": "application/json",
          "cache-control": "no-store",
        });
        response.end(await minted.text());
      } else {
        response.writeHead(404).end();
      }
    } catch (error) {
      response.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  };

  const server = createServer((request, response) => (gated ?? pages)(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    useFloodgate(intakeUrl, serverKey, roomId) {
      intake = { url: intakeUrl, serverKey };
      const roomUrl = new URL("/queue", origin);
      roomUrl.searchParams.set("api", intakeUrl);
      roomUrl.searchParams.set("room", roomId);
      const gate = floodgate.admissionGate({
        jwksUrl: `${intakeUrl}/.well-known/jwks.json`,
        roomId,
        roomUrl: roomUrl.href,
        secureCookie: false,
        protect: ({ path }) => path === "/product",
      });
      gated = gate.node(pages);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await project.remove();
      await rm(packDir, { recursive: true, force: true });
    },
  };
}
