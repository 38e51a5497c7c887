// A room's `lanes` as PUT /v1/rooms/:roomId gives them, checked past what the schema can say: names unique and
// not "bypass" (a join pass's other kind), shares summing to at most 1 (the default queue has the rest), and a
// room not drawing at random (the draw is over the whole queue: it would ignore the shares). A refusal names `lanes` or the
// lane's name in it.
import type { RoomLane } from "@floodgate/admission";
import type { RoomMethod } from "@floodgate/domain";
import { ProblemError } from "../errors/error-catalogue.ts";

/** Shares are decimals: a sum this close to 1 is 1. */
const SHARE_SUM_SLACK = 1e-9;

export function checkedLanes(lanes: RoomLane[], method: RoomMethod): RoomLane[] {
  const names = new Set<string>();
  let sum = 0;
  for (const [index, lane] of lanes.entries()) {
    if (lane.name === "bypass")
      refuse(`lanes[${index}].name: "bypass" is a join pass's kind, not a lane`, index);
    if (names.has(lane.name)) refuse(`lanes[${index}].name: ${lane.name} is named twice`, index);
    names.add(lane.name);
    sum += lane.share;
  }
  if (sum > 1 + SHARE_SUM_SLACK) refuse(`the lanes' shares sum to ${sum}, more than 1`);
  if (lanes.length > 0 && method === "random")
    refuse("lanes need method fifo (or reject): a random draw ignores their shares");
  return lanes.map(({ name, share }) => ({ name, share }));
}

/** Named as the schema's own refusals name a field inside `lanes` (lanes.0.name). */
function refuse(detail: string, index?: number): never {
  const field = index === undefined ? "lanes" : `lanes.${index}.name`;
  const pointer = `#/${field.replaceAll(".", "/")}`;
  throw new ProblemError("validation_error", { field, detail, errors: [{ field, pointer, detail }] });
}
