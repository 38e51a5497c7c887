// The demo store (apps/web/public) at /demo/, on the API's own origin so the page needs no CORS, and the
// checkout SDK's browser bundle beside it at /demo/checkout-sdk.js (built once per process, on first request:
// the bundler is imported then, so an intake nobody opens the demo on never loads it).
// Off the hot path: these routes share nothing with the checkout routes but the server.
import { readFile } from "node:fs/promises";
import { problemResponseSchema } from "@floodgate/domain";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

const PUBLIC_DIR = new URL("../../../web/public/", import.meta.url);

// One flat folder, names the page uses: anything else (a "..", a slash, a dotfile, an encoded trick once
// decoded) matches no file and answers 404 before the file system is asked.
const FILE_NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg|png|ico)$/;
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
};

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

const notFound = (path: string) => new ProblemError("not_found", { detail: `the demo has no ${path}` });

export async function demoPlugin(app: FastifyInstance) {
  let bundle: Promise<string> | undefined;
  const sdkBundle = () => {
    bundle ??= import("@floodgate/checkout-sdk/browser-bundle")
      .then(({ buildBrowserBundle }) => buildBrowserBundle())
      .catch((error: unknown) => {
        bundle = undefined; // the next request tries again rather than serving the failure forever
        throw error;
      });
    return bundle;
  };

  const send = (reply: FastifyReply, extension: string, body: string | Buffer) =>
    reply
      .header("content-type", CONTENT_TYPES[extension]!)
      .header("cache-control", "no-cache")
      .header("x-content-type-options", "nosniff")
      .send(body);

  // Relative links in the page (./store.css) resolve under /demo/ only with the slash.
  app.get("/demo", { config: { auth: "public" }, schema: { response: problems } }, (request, reply) => {
    const query = request.url.indexOf("?");
    return reply.redirect(`/demo/${query === -1 ? "" : request.url.slice(query)}`, 301);
  });

  app.get(
    "/demo/checkout-sdk.js",
    { config: { auth: "public" }, schema: { response: problems } },
    async (_request, reply) => send(reply, "js", await sdkBundle()),
  );

  app.get<{ Params: { "*": string } }>(
    "/demo/*",
    { config: { auth: "public" }, schema: { response: problems } },
    async (request, reply) => {
      const name = request.params["*"] || "index.html";
      const extension = FILE_NAME.exec(name)?.[1];
      if (extension === undefined) throw notFound(name);
      const file = new URL(name, PUBLIC_DIR);
      const body = await readFile(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw notFound(name);
        throw error;
      });
      return send(reply, extension, body);
    },
  );
}
