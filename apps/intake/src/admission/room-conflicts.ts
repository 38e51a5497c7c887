// What one room definition may not share with the other active rooms (a room with mode off guards nothing):
// a route class guarded whole by two rooms, or a product or coupon in two sales' rooms. Either would leave a
// request two rooms to be checked against, and its script reads one. Run under the room definition lock
// (room-definition-lock.ts), so two admins cannot both pass it.
import type { RoomDefinition } from "@floodgate/admission";
import { isSaleRoom } from "@floodgate/admission";
import { ProblemError } from "../errors/error-catalogue.ts";

/** The definition as asked, before it is written. */
export type RoomDefinitionDraft = Pick<RoomDefinition, "roomId" | "mode" | "guards" | "products" | "coupons">;

/** Throws the 409 for the first thing `draft` shares with an active room among `others`. */
export function refuseRoomConflicts(draft: RoomDefinitionDraft, others: (RoomDefinition | null)[]): void {
  if (draft.mode === "off") return;
  for (const other of others) {
    if (!other || other.roomId === draft.roomId || other.mode === "off") continue;
    if (!isSaleRoom(draft) && !isSaleRoom(other)) {
      const shared = draft.guards.filter((g) => other.guards.includes(g));
      if (shared.length > 0) {
        throw new ProblemError("room_guard_conflict", {
          field: "guards",
          detail: `room ${other.roomId} already guards ${shared.join(", ")}; set its mode to off or drop the class from one of them`,
        });
      }
    }
    for (const list of ["products", "coupons"] as const) {
      const index = draft[list].findIndex((id) => other[list].includes(id));
      if (index >= 0) {
        throw new ProblemError("room_sale_conflict", {
          field: `${list}.${index}`,
          detail: `room ${other.roomId} already guards ${draft[list][index]}; set its mode to off or drop it from one of them`,
        });
      }
    }
  }
}

/** A sale's room guards what its products and coupons touch, no route class whole: naming both is refused. */
export function refuseGuardsBesideSale(draft: RoomDefinitionDraft): void {
  if (!isSaleRoom(draft) || draft.guards.length === 0) return;
  const detail =
    "a room with products or coupons guards only the requests that touch them: leave guards empty, or define another room for the route classes";
  throw new ProblemError("validation_error", {
    field: "guards",
    detail,
    errors: [{ field: "guards", pointer: "#/guards", detail }],
  });
}
