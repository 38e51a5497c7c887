// An endpoint URL the shop gives: well-formed (400 naming `url`) and not into a private network (422 naming
// `url`, unless WEBHOOK_ALLOW_PRIVATE). The worker checks the address again when it connects.
import { webhookUrlProblem, webhookUrlShapeProblem } from "@floodgate/domain";
import { ProblemError } from "../errors/error-catalogue.ts";

export async function checkEndpointUrl(url: string, allowPrivate: boolean): Promise<void> {
  const shape = webhookUrlShapeProblem(url);
  if (shape !== null) {
    const detail = `url ${shape}`;
    throw new ProblemError("validation_error", {
      field: "url",
      detail,
      errors: [{ field: "url", pointer: "/url", detail }],
    });
  }
  const problem = await webhookUrlProblem(url, allowPrivate);
  if (problem !== null) {
    throw new ProblemError("webhook_url_refused", { field: "url", detail: `url ${problem}` });
  }
}
