// The gate for a shop's own pages: one core that decides, the server adapters (gate-adapters.ts) only apply the
// decision. A request carrying a valid admission (the gate's cookie, Authorization: Bearer, Admission-Token)
// passes; any other is sent to the room: a 302 to `roomUrl` for a page, a 403 problem+json
// (waiting_room_required) for an API call. The gate's own route (`admitPath`, GET ?token=&return=) takes the token
// the room handed the shopper, sets the cookie (HttpOnly, SameSite=Lax, Secure unless turned off for plain-http
// tests; Max-Age the token's remaining life) and redirects to `return`, a path of this origin only.
import type { AdmissionClaims } from "./admission-claims.ts";
import {
  type AdmissionErrorCode,
  AdmissionVerificationError,
  isUnavailable,
} from "./admission-verification-error.ts";
import {
  type ExpressMiddleware,
  expressMiddleware,
  type FastifyOnRequestHook,
  fastifyHook,
  type NodeRequestHandler,
  nodeHandler,
} from "./gate-adapters.ts";
import {
  type GateRequest,
  presentedTokens,
  requestTarget,
  sameOriginPath,
  wantsPage,
} from "./gate-request.ts";
import { AdmissionVerifier, type VerifyAdmissionOptions } from "./verify-admission.ts";

export interface AdmissionGateOptions extends VerifyAdmissionOptions {
  /** Where a shopper without an admission goes (the page that joins the room); `return` is added to it. */
  roomUrl: string | URL;
  /** The gate's own route on the shop's domain (default "/.floodgate/admit"). */
  admitPath?: string;
  /** The cookie that carries the admission (default "floodgate_admission"). */
  cookieName?: string;
  /** Secure cookie (default true); false only for a plain-http development server. */
  secureCookie?: boolean;
  /** Which requests the room guards (default: all but the admit route). */
  protect?: (request: { method: string; path: string }) => boolean;
}

export type GateDecision =
  /** Let it through; `admission` is null for a request the gate does not guard. */
  | { pass: true; admission: AdmissionClaims | null }
  | { pass: false; status: number; headers: Record<string, string | string[]>; body: string };

type Reason = AdmissionErrorCode | "no_token";

export class AdmissionGate {
  readonly #options: AdmissionGateOptions;
  readonly #verifier: AdmissionVerifier;
  readonly #admitPath: string;
  readonly #cookieName: string;

  constructor(options: AdmissionGateOptions) {
    this.#options = options;
    this.#verifier = new AdmissionVerifier(options);
    this.#admitPath = options.admitPath ?? "/.floodgate/admit";
    this.#cookieName = options.cookieName ?? "floodgate_admission";
  }

  /** node:http: the handler is reached only by requests let through. */
  node(handler: NodeRequestHandler): NodeRequestHandler {
    return nodeHandler(this, handler);
  }

  /** Express: `app.use(gate.express())`. */
  express(): ExpressMiddleware {
    return expressMiddleware(this);
  }

  /** Fastify: `app.addHook("onRequest", gate.fastify())`. */
  fastify(): FastifyOnRequestHook {
    return fastifyHook(this);
  }

  async decide(request: GateRequest): Promise<GateDecision> {
    const target = requestTarget(request);
    const method = (request.method ?? "GET").toUpperCase();
    if (target.pathname === this.#admitPath && (method === "GET" || method === "HEAD")) {
      return this.#admit(request, target);
    }
    if (!(this.#options.protect?.({ method, path: target.pathname }) ?? true)) {
      return { pass: true, admission: null };
    }
    let reason: Reason = "no_token";
    for (const token of presentedTokens(request.headers, this.#cookieName)) {
      try {
        return { pass: true, admission: await this.#verifier.verify(token) };
      } catch (error) {
        if (!(error instanceof AdmissionVerificationError)) throw error;
        // A failure to decide outweighs a refusal: the shopper may well hold a valid admission.
        if (!isUnavailable(reason as AdmissionErrorCode)) reason = error.code;
      }
    }
    return this.#refuse(request, reason, `${target.pathname}${target.search}`);
  }

  /** GET <admitPath>?token=&return=: the cookie set, back to `return`; a bad token goes to the room. */
  async #admit(request: GateRequest, target: URL): Promise<GateDecision> {
    const back = sameOriginPath(target.searchParams.get("return"));
    const token = target.searchParams.get("token") ?? "";
    let admission: AdmissionClaims;
    try {
      admission = await this.#verifier.verify(token);
    } catch (error) {
      if (!(error instanceof AdmissionVerificationError)) throw error;
      return this.#refuse(request, token === "" ? "no_token" : error.code, back);
    }
    const maxAge = Math.max(0, Math.floor((admission.expiresAt - Date.now()) / 1000));
    return {
      pass: false,
      status: 302,
      headers: {
        location: back,
        "set-cookie": this.#cookie(token, maxAge),
        "cache-control": "no-store",
        "content-type": "text/plain; charset=utf-8",
      },
      body: `Admitted: continue to ${back}\n`,
    };
  }

  #cookie(value: string, maxAge: number): string {
    const secure = this.#options.secureCookie === false ? "" : "; Secure";
    return `${this.#cookieName}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
  }

  #refuse(request: GateRequest, reason: Reason, back: string): GateDecision {
    const roomId = this.#options.roomId;
    if (isUnavailable(reason as AdmissionErrorCode)) {
      return problem(503, "admission_unavailable", {
        title: "The waiting room's keys could not be read: try again shortly",
        roomId,
        reason,
        headers: { "retry-after": "5" },
      });
    }
    // A cookie that no longer admits is dropped, so the next page does not verify it again.
    const stale: Record<string, string> = request.headers.cookie?.includes(`${this.#cookieName}=`)
      ? { "set-cookie": this.#cookie("", 0) }
      : {};
    if (wantsPage(request.headers)) {
      const room = new URL(this.#options.roomUrl);
      room.searchParams.set("return", back);
      return {
        pass: false,
        status: 302,
        headers: {
          location: room.href,
          "cache-control": "no-store",
          "content-type": "text/plain; charset=utf-8",
          ...stale,
        },
        body: `A waiting room guards this page: ${room.href}\n`,
      };
    }
    return problem(403, "waiting_room_required", {
      title: "A waiting room guards this route: join it and come back with the admission it gives",
      roomId,
      reason,
      roomUrl: String(this.#options.roomUrl),
      headers: stale,
    });
  }
}

function problem(
  status: number,
  code: string,
  fields: { title: string; headers: Record<string, string>; [extra: string]: unknown },
): GateDecision {
  const { title, headers, ...extras } = fields;
  const body = { type: `/problems/${code.replaceAll("_", "-")}`, title, status, code, ...extras };
  return {
    pass: false,
    status,
    headers: {
      "content-type": "application/problem+json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

export function admissionGate(options: AdmissionGateOptions): AdmissionGate {
  return new AdmissionGate(options);
}
