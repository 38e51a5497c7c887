// Rate limits at run time, for operators (Authorization: Bearer <ADMIN_API_KEY>): every process applies a
// change within a moment (config channel). DELETE returns a class to its configured policy.

import { clearRateLimitOverride, writeRateLimitOverride } from "@floodgate/admission";
import type { RateLimitChangeRequest, RouteClassParams } from "@floodgate/domain";
import {
  hasUserLimit,
  ipOnlyReason,
  problemResponseSchema,
  ROUTE_CLASSES,
  type RouteClass,
  rateLimitChangeRequestSchema,
  rateLimitPolicyResponseSchema,
  rateLimitsResponseSchema,
  routeClassParamsSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { adminRoutes } from "../auth/admin-auth.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function rateLimitsAdminRoute(app: FastifyInstance) {
  adminRoutes(app);
  const view = (routeClass: RouteClass) => ({ routeClass, ...app.admission.book.limits(routeClass).policy });

  app.get(
    "/v1/rate-limits",
    {
      schema: {
        operationId: "listRateLimits",
        summary: "The rate limits in effect",
        tags: ["Rate limits"],
        response: { 200: rateLimitsResponseSchema, ...problems },
      },
    },
    async () => {
      await app.admission.book.reload(app.admission.redis, app.admission.keys);
      return { policies: ROUTE_CLASSES.map(view) };
    },
  );

  app.put<{ Params: RouteClassParams; Body: RateLimitChangeRequest }>(
    "/v1/rate-limits/:routeClass",
    {
      schema: {
        operationId: "setRateLimit",
        summary: "Change a route class's rate limits at run time",
        tags: ["Rate limits"],
        params: routeClassParamsSchema,
        body: rateLimitChangeRequestSchema,
        response: { 200: rateLimitPolicyResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { routeClass } = request.params;
      if (request.body.user && !hasUserLimit(routeClass)) {
        throw new ProblemError("validation_error", {
          field: "user",
          detail: ipOnlyReason(routeClass),
        });
      }
      await writeRateLimitOverride(app.admission.redis, app.admission.keys, routeClass, request.body);
      await app.admission.book.reload(app.admission.redis, app.admission.keys);
      request.log.info({ routeClass, change: request.body }, "rate limit changed");
      return view(routeClass);
    },
  );

  app.delete<{ Params: RouteClassParams }>(
    "/v1/rate-limits/:routeClass",
    {
      schema: {
        operationId: "resetRateLimit",
        summary: "Return a route class to its configured rate limits",
        tags: ["Rate limits"],
        params: routeClassParamsSchema,
        response: { 200: rateLimitPolicyResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { routeClass } = request.params;
      await clearRateLimitOverride(app.admission.redis, app.admission.keys, routeClass);
      await app.admission.book.reload(app.admission.redis, app.admission.keys);
      request.log.info({ routeClass }, "rate limit back to its configured policy");
      return view(routeClass);
    },
  );
}
