// GET /problems/:slug: what a problem's `type` URI resolves to (RFC 9457 asks that it explain the problem to a
// human). The types stay relative references ("/problems/rate-limited", problem-plugin.ts), resolved against the
// request's URI, so they name this intake whatever host or scheme it is reached on. HTML for a browser, the
// same facts as JSON for anything else; /problems lists every code.
import { problemResponseSchema } from "@floodgate/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ERRORS, type ErrorCode, ProblemError } from "../errors/error-catalogue.ts";
import { PROBLEM_GUIDANCE } from "../errors/problem-guidance.ts";

const CODES = Object.keys(ERRORS) as ErrorCode[];
const slugOf = (code: ErrorCode) => code.replaceAll("_", "-");
const BY_SLUG = new Map(CODES.map((code) => [slugOf(code), code]));

const problemTypeSchema = {
  type: "object",
  required: ["type", "code", "title", "status", "retryable", "guidance"],
  properties: {
    type: { type: "string", description: "This page: the `type` of every problem with this code." },
    code: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    retryable: { type: "boolean", description: "Whether the same request can succeed later." },
    guidance: { type: "string", description: "What to do about it." },
  },
} as const;

const html = { type: "string", description: "The same, as an HTML page (`Accept: text/html`)." } as const;

const view = (code: ErrorCode) => ({
  type: `/problems/${slugOf(code)}`,
  code,
  ...ERRORS[code],
  guidance: PROBLEM_GUIDANCE[code],
});

const htmlText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Prose with `code` spans, as the catalogue and the guidance write them. */
const prose = (text: string) => htmlText(text).replace(/`([^`]+)`/g, "<code>$1</code>");

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${htmlText(title)}</title>` +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}" +
  "code{background:#f3f3f3;padding:0 .2em}td,th{text-align:left;padding:.2rem .6rem .2rem 0}</style>" +
  `</head><body>${body}<p><a href="/problems">Every problem type</a> · <a href="/docs">API reference</a></p></body></html>`;

function codePage(code: ErrorCode): string {
  const entry = view(code);
  return page(
    `${code}: ${entry.title}`,
    `<h1><code>${code}</code></h1><p>${prose(entry.title)}</p><table>` +
      `<tr><th>HTTP status</th><td>${entry.status}</td></tr>` +
      `<tr><th>Retryable</th><td>${entry.retryable ? "yes: the same request can succeed later" : "no: not as it is"}</td></tr>` +
      `</table><h2>What to do</h2><p>${prose(entry.guidance)}</p>`,
  );
}

function indexPage(): string {
  const rows = CODES.map(
    (code) =>
      `<tr><td><a href="/problems/${slugOf(code)}"><code>${code}</code></a></td><td>${ERRORS[code].status}</td>` +
      `<td>${prose(ERRORS[code].title)}</td></tr>`,
  ).join("");
  return page(
    "Problem types",
    "<h1>Problem types</h1><p>Every error is RFC 9457 <code>application/problem+json</code>; its <code>type</code> " +
      `is one of these.</p><table><tr><th>code</th><th>status</th><th>title</th></tr>${rows}</table>`,
  );
}

const wantsHtml = (request: FastifyRequest) => /\btext\/html\b/.test(request.headers.accept ?? "");

export async function problemPagesRoute(app: FastifyInstance) {
  app.get(
    "/problems",
    {
      config: { auth: "public" },
      schema: {
        operationId: "listProblemTypes",
        summary: "Every problem type",
        tags: ["Problems"],
        response: {
          200: {
            description: "Every code of the error catalogue.",
            content: {
              "application/json": {
                schema: { type: "object", properties: { data: { type: "array", items: problemTypeSchema } } },
              },
              "text/html": { schema: html },
            },
          },
        },
      },
    },
    async (request, reply) =>
      wantsHtml(request)
        ? reply.type("text/html; charset=utf-8").send(indexPage())
        : reply.type("application/json").send({ data: CODES.map(view) }),
  );

  app.get<{ Params: { slug: string } }>(
    "/problems/:slug",
    {
      config: { auth: "public" },
      schema: {
        operationId: "getProblemType",
        summary: "What a problem type means and what to do about it",
        tags: ["Problems"],
        params: {
          type: "object",
          required: ["slug"],
          properties: { slug: { type: "string", maxLength: 64 } },
        },
        response: {
          200: {
            description: "The code's status, whether retrying can help, and what to do.",
            content: { "application/json": { schema: problemTypeSchema }, "text/html": { schema: html } },
          },
          "4xx": problemResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const code = BY_SLUG.get(request.params.slug);
      if (code === undefined) {
        throw new ProblemError("not_found", {
          field: "slug",
          detail: `no problem type ${request.params.slug}`,
        });
      }
      return wantsHtml(request)
        ? reply.type("text/html; charset=utf-8").send(codePage(code))
        : reply.type("application/json").send(view(code));
    },
  );
}
