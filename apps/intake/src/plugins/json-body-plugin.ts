// JSON bodies, read by Fastify's own parser (secure-json-parse: `__proto__` and `constructor` keys refused),
// with one difference: on a route that takes no body (no body schema: DELETE /v1/api-keys/:id, a cancel, a
// redeliver), an empty body is no body, whatever Content-Type says. Many HTTP clients send
// `Content-Type: application/json` on every call; refusing that as malformed JSON refused a well-formed request
// for a header it did not need. A route that takes JSON still answers an empty or malformed body with the 400
// problem (problem-plugin.ts), and so does every route for a non-empty body that is not JSON.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

export const jsonBodyPlugin = fp(async (app: FastifyInstance) => {
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? "error",
    app.initialConfig.onConstructorPoisoning ?? "error",
  );
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body: string, done) => {
    if (body === "" && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  });
});
