// Admin routes (coupon definitions) need `Authorization: Bearer <ADMIN_API_KEY>`. The key is compared in
// constant time: both sides are hashed to 32 bytes first, so timingSafeEqual always sees equal lengths and
// neither the key's length nor the first wrong character shows in how long a refusal takes.
// `crypto` is the module object (not a namespace import) so the contract test can see timingSafeEqual called.
import crypto from "node:crypto";
import type { Config } from "@floodgate/config";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

const REALM = 'Bearer realm="floodgate-admin"';

export const digest = (value: string): Buffer => crypto.createHash("sha256").update(value, "utf8").digest();

export function adminKeyMatches(presented: string, expectedDigest: Buffer): boolean {
  return crypto.timingSafeEqual(digest(presented), expectedDigest);
}

/**
 * Makes every route this plugin context declares an admin route: marked so the callers' authentication
 * (auth-plugin.ts) leaves it to this check, and refused without the admin key before its body is read.
 */
export function adminRoutes(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    route.config = { ...(route.config as object), auth: "admin" };
  });
  app.addHook("onRequest", requireAdmin(app.config));
}

/** An onRequest hook: it runs before the body is parsed, so an unauthenticated caller learns nothing else. */
export function requireAdmin(config: Config) {
  const expected = config.adminApiKey === null ? null : digest(config.adminApiKey);
  return async (request: FastifyRequest): Promise<void> => {
    if (expected === null) {
      throw new ProblemError("admin_disabled", {
        detail: "Set ADMIN_API_KEY (16-256 visible ASCII characters) to enable the admin routes",
      });
    }
    const header = request.headers.authorization;
    const bearer = typeof header === "string" ? /^Bearer +([\x21-\x7E]+) *$/i.exec(header) : null;
    if (bearer === null) {
      throw new ProblemError("unauthorized", {
        field: "Authorization",
        detail: "Authorization: Bearer <ADMIN_API_KEY> is missing",
        headers: { "WWW-Authenticate": REALM },
      });
    }
    if (!adminKeyMatches(bearer[1]!, expected)) {
      throw new ProblemError("unauthorized", {
        field: "Authorization",
        detail: "The bearer key is not this deployment's ADMIN_API_KEY",
        headers: { "WWW-Authenticate": `${REALM}, error="invalid_token"` },
      });
    }
  };
}
