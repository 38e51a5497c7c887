// A refusal on a socket: the problem+json body the HTTP routes would answer (problemBody, shared with replies),
// and a close code that carries its status, 4000 + status (4400, 4404), as WebSocket close codes 4000-4999 are
// the application's. Every socket sends it in one shape, {type: "error", code, problem} (socket-docs.ts).
import { problemResponseSchema } from "@floodgate/domain";
import { ERRORS, ProblemError } from "../errors/error-catalogue.ts";
import { problemBody } from "../errors/problem-reply.ts";
import { projectOnto } from "./schema-projection.ts";

export interface SocketRefusal {
  problem: Record<string, unknown>;
  closeCode: number;
}

/** The message that tells a socket why it is refused, before the close that carries refusal.closeCode. */
export function refusalMessage(refusal: SocketRefusal): string {
  return JSON.stringify({ type: "error", code: refusal.problem.code, problem: refusal.problem });
}

/** Null when the error is not a client's problem (Redis away, a bug): the socket closes 1011 instead. */
export function socketRefusal(error: unknown, instance: string, requestId?: string): SocketRefusal | null {
  if (!(error instanceof ProblemError)) return null;
  const { status } = ERRORS[error.code];
  if (status >= 500) return null;
  return {
    problem: projectOnto(
      problemBody(error.code, error.extras, instance, requestId),
      problemResponseSchema,
    ) as Record<string, unknown>,
    closeCode: 4000 + status,
  };
}
