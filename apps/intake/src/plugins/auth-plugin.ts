// Identity for every request: a global onRequest hook verifies the caller before the body is read, unless the
// route is public (health, metrics, the public catalogue, the demo's files), an admin route (admin-auth.ts
// checks those) or a WebSocket (its handler authenticates and answers on the socket, which a browser can
// read, where an HTTP 401 on the upgrade it could not). Default deny: a new route needs a caller unless it
// says otherwise.
import { randomBytes } from "node:crypto";
import { CustomerTokenSigner, CustomerTokenVerifier } from "@floodgate/auth";
import type { Config } from "@floodgate/config";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { digest } from "../auth/admin-auth.ts";
import { Authenticator } from "../auth/authenticator.ts";
import type { Caller } from "../auth/caller.ts";
import { ServerKeyCache } from "../auth/server-key-cache.ts";

export type RouteAuth = "caller" | "public" | "admin" | "socket";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Who may call the route; "caller" (a server key or a customer token) when unset. */
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** The verified caller; set before the handler on every route whose auth is "caller". */
    caller: Caller;
  }
  interface FastifyInstance {
    auth: {
      authenticator: Authenticator;
      serverKeys: ServerKeyCache;
      /** Mints the customer tokens of POST /v1/customer-sessions (and the demo's sign-in). */
      customerTokens: CustomerTokenSigner;
      /** Where key changes are published for every intake process. */
      keyChannel: string;
      /** The bearer of a WebSocket upgrade: `?access_token=` (browsers cannot set headers) or the header. */
      socketCaller(request: FastifyRequest): Promise<Caller>;
    };
  }
}

export const authPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  if (config.auth === "off") {
    app.log.warn(
      "AUTH=off: requests are not authenticated, and anyone who can reach this intake can move anyone's money",
    );
  }
  const secret = config.customerTokenSecret ?? randomBytes(32).toString("base64url");
  if (config.customerTokenSecret === null && config.auth === "on") {
    app.log.warn(
      "CUSTOMER_TOKEN_SECRET is not set: this process signs customer tokens with a key of its own, which other intake processes will refuse",
    );
  }
  const keyChannel = `${config.redisPrefix}api-keys`;
  const serverKeys = new ServerKeyCache({
    db: app.globalDb,
    redisUrl: config.redisUrl,
    channel: keyChannel,
    log: app.log,
  });
  const authenticator = new Authenticator({
    enabled: config.auth === "on",
    serverKeys,
    customerTokens: new CustomerTokenVerifier({
      secret,
      shop: config.customerJwt,
      cacheSize: config.customerTokenCacheSize,
    }),
    adminKeyDigest: config.adminApiKey === null ? null : digest(config.adminApiKey),
  });
  if (config.auth === "on") await serverKeys.start();
  app.addHook("onClose", async () => serverKeys.stop());

  // null until the hook sets it; a reference type, so never shared between requests.
  app.decorateRequest("caller", null as never);
  app.decorate("auth", {
    authenticator,
    serverKeys,
    customerTokens: new CustomerTokenSigner(secret),
    keyChannel,
    socketCaller: async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown> | undefined;
      const token = query?.access_token;
      const bearer =
        typeof token === "string" && token !== ""
          ? token
          : authenticator.bearerOf(request.headers.authorization);
      return authenticator.authenticate(bearer);
    },
  });

  // Callback style: every request runs it, and almost every caller is known without an await (a promise per
  // request was a measurable share of the intake's CPU, issue 30); only a shop's token seen for the first time
  // waits for jose.
  app.addHook("onRequest", (request, _reply, done) => {
    // A CORS preflight carries no credentials by design; @fastify/cors answers it.
    if (request.method === "OPTIONS") return done();
    // Read once: Fastify builds the object at every read.
    const route = request.routeOptions;
    // No route matched: the 404 says nothing a caller could not learn without a key.
    if (route.url === undefined) return done();
    const mode = route.config.auth ?? "caller";
    if (mode !== "caller") return done();
    const authorization = request.headers.authorization;
    const remembered = authenticator.rememberedCustomer(authorization);
    if (remembered !== null) {
      request.caller = remembered;
      return done();
    }
    let bearer: string | undefined;
    let caller: Caller | null;
    try {
      bearer = authenticator.bearerOf(authorization);
      caller = authenticator.authenticateNow(bearer);
    } catch (error) {
      return done(error as Error);
    }
    if (caller !== null) {
      request.caller = caller;
      return done();
    }
    authenticator.authenticate(bearer).then((verified) => {
      request.caller = verified;
      done();
    }, done);
  });
});
