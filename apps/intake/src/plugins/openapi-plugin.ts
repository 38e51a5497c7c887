// The OpenAPI 3.1 document, generated from the route schemas (@fastify/swagger): openapiPlugin is registered
// before every route, since the document is made of the routes its onRoute hook sees. docsRoutes serves it at
// /openapi.json, with a reference page at /docs (@fastify/swagger-ui, which serves its own files: no CDN) and
// the problem type pages at /problems. All public: they say nothing a caller could not learn from the answers.
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { hoistComponents, OPENAPI_BASE } from "../openapi/openapi-document.ts";
import { transformOperation } from "../openapi/operation-transform.ts";
import { problemPagesRoute } from "../routes/problem-pages-route.ts";

export async function docsRoutes(app: FastifyInstance) {
  // Before the routes of this context: the auth hook reads the mode (auth-plugin.ts).
  app.addHook("onRoute", (route) => {
    route.config = { ...(route.config as object), auth: "public" };
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: "/docs", theme: { title: "Floodgate API" } });
  await app.register(problemPagesRoute);
}

export const openapiPlugin = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: OPENAPI_BASE,
    transform: transformOperation,
    transformObject: (document) =>
      hoistComponents(("openapiObject" in document ? document.openapiObject : {}) as Record<string, unknown>),
  });
});
