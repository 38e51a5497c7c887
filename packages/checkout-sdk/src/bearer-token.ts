// The bearer every call carries, asked of the page: a customer token in a browser (minted by the shop's server),
// or a server key in a Node service. Asked once and kept; asked again only when the server said the one sent
// has expired, and then once for every call that saw it expire, not once per call.
import { FloodgateError } from "./floodgate-errors.ts";

export type GetToken = () => string | Promise<string>;

export interface BearerToken {
  /** The token to send now. */
  current(): Promise<string>;
  /** A fresh token after `refused` was answered token_expired (shared by every call that sent `refused`). */
  refresh(refused: string): Promise<string>;
}

export function bearerToken(getToken: GetToken): BearerToken {
  let held: Promise<string> | undefined;
  const ask = () => {
    const asked = Promise.resolve()
      .then(getToken)
      .then((token) => {
        if (typeof token !== "string" || token === "") throw new TypeError("getToken() gave no token");
        return token;
      })
      .catch((cause: unknown) => {
        throw new FloodgateError({ code: "token_unavailable", title: "getToken() failed" }, { cause });
      });
    // A failure is not kept: the next call asks the page again.
    asked.catch(() => {
      if (held === asked) held = undefined;
    });
    held = asked;
    return asked;
  };
  return {
    current: () => held ?? ask(),
    async refresh(refused) {
      const now = await (held ?? ask()).catch(() => undefined);
      return now !== undefined && now !== refused ? now : ask();
    },
  };
}
