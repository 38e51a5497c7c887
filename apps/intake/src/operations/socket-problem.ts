// A refusal on a socket: the problem+json body the HTTP routes would answer (problem-plugin.ts builds the same
// shape for replies), and a close code that carries its status, 4000 + status (4400, 4404), as WebSocket
// close codes 4000-4999 are the application's.
import { problemResponseSchema } from "@floodgate/domain";
import { ERRORS, ProblemError } from "../errors/error-catalogue.ts";
import { projectOnto } from "./schema-projection.ts";

export interface SocketRefusal {
  problem: Record<string, unknown>;
  closeCode: number;
}

/** Null when the error is not a client's problem (Redis away, a bug): the socket closes 1011 instead. */
export function socketRefusal(error: unknown, instance: string): SocketRefusal | null {
  if (!(error instanceof ProblemError)) return null;
  const entry = ERRORS[error.code];
  if (entry.status >= 500) return null;
  const { retryAfterSeconds: _, headers: __, ...rest } = error.extras;
  const detail = error.extras.detail ?? entry.title;
  if (rest.field !== undefined && rest.errors === undefined) rest.errors = [{ field: rest.field, detail }];
  return {
    problem: projectOnto(
      {
        type: `/problems/${error.code.replaceAll("_", "-")}`,
        title: entry.title,
        status: entry.status,
        code: error.code,
        retryable: entry.retryable,
        instance,
        ...rest,
        detail,
      },
      problemResponseSchema,
    ) as Record<string, unknown>,
    closeCode: 4000 + entry.status,
  };
}
