// Who is calling, once verified: the shop's server (a server key, acts for any user it names), a shopper
// (a customer token, acts only for its own user) or the admin (configuration only). Routes ask these functions
// which user a request may act for; nothing else reads the Authorization header.
import { ProblemError } from "../errors/error-catalogue.ts";

export type Caller =
  | { kind: "server"; keyId: string }
  | { kind: "customer"; userId: string; expiresAt: number }
  | { kind: "admin" };

/**
 * The user a request acts for. A server key must name it (`claimed`, from the body or the path); a shopper's
 * comes from the token, and naming another user is refused rather than ignored, so a client bug shows.
 */
export function actingUser(caller: Caller, claimed: string | undefined, field = "userId"): string {
  if (caller.kind === "customer") {
    if (claimed !== undefined && claimed !== caller.userId) {
      throw new ProblemError("forbidden_user", {
        field,
        detail: `this customer token acts for ${caller.userId}, not for ${claimed}`,
      });
    }
    return caller.userId;
  }
  if (caller.kind === "admin") throw adminNotAllowed();
  if (claimed === undefined) {
    throw new ProblemError("validation_error", {
      field,
      errors: [
        {
          field,
          pointer: `/${field}`,
          detail: "a server key acts for the user it names: userId is required",
        },
      ],
      detail: "a server key acts for the user it names: userId is required",
    });
  }
  return claimed;
}

/** May this caller see what belongs to `userId`? Shoppers see only their own (others' answer 404, no probing). */
export function mayRead(caller: Caller, userId: string): boolean {
  if (caller.kind === "admin") throw adminNotAllowed();
  return caller.kind === "server" || caller.userId === userId;
}

/** What a forbidden_caller names as at fault: the credential, not anything in the body. */
export const CREDENTIAL_FIELD = "Authorization";

/** Routes only the shop's server may call: deposits (money enters a wallet), minting customer tokens. */
export function requireServer(caller: Caller, what: string): void {
  if (caller.kind === "server") return;
  throw new ProblemError("forbidden_caller", {
    field: CREDENTIAL_FIELD,
    detail: `${what} needs the shop's server key (Authorization: Bearer fg_sk_…); ${
      caller.kind === "customer" ? "a customer token" : "the admin key"
    } may not`,
  });
}

/**
 * A view of something owned by a user, if this caller may see it; otherwise the same 404 an unknown id gets,
 * so a shopper cannot learn which ids exist.
 */
export function visibleTo<V extends { userId: string }>(
  caller: Caller,
  view: V,
  field: string,
  what: string,
): V {
  if (mayRead(caller, view.userId)) return view;
  throw new ProblemError("not_found", { field, detail: `no ${what}` });
}

export const adminNotAllowed = () =>
  new ProblemError("forbidden_caller", {
    field: CREDENTIAL_FIELD,
    detail:
      "the admin key configures the deployment; payments, orders and reads need a server key or a customer token",
  });
