// The rules of POST /v1/coupons the JSON Schema cannot say, answered like schema errors (400 naming the
// field): a timestamp that does not exist, an end not after the start, a percentage above 100.
import type { CouponCreateRequest, CouponDefinition } from "@floodgate/domain";
import { ProblemError } from "../errors/error-catalogue.ts";

const invalid = (field: string, detail: string) =>
  new ProblemError("validation_error", {
    field,
    detail,
    errors: [{ field, pointer: `#/${field.replaceAll(".", "/")}`, detail }],
  });

// The schema's pattern already fixed the shape; this refuses what the shape allows but the calendar does not
// (Date.parse would roll 2026-02-30 over into March).
const PARTS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(?:Z|[+-](\d{2}):(\d{2}))$/;

export function parseTimestamp(field: string, text: string): number {
  const parts = PARTS.exec(text);
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = (parts?.slice(1) ?? []).map(
    (part) => (part === undefined ? 0 : Number(part)),
  );
  const valid =
    parts !== null &&
    year! >= 1970 &&
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= new Date(Date.UTC(year!, month!, 0)).getUTCDate() &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHour! <= 23 &&
    offsetMinute! <= 59;
  const ms = valid ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw invalid(field, `"${field}" is not a valid RFC 3339 timestamp`);
  return ms;
}

export function checkCouponInput(
  body: CouponCreateRequest,
): Pick<CouponDefinition, "name" | "quantity" | "startsAt" | "endsAt" | "discount"> {
  const startsAt = body.startsAt === undefined ? null : parseTimestamp("startsAt", body.startsAt);
  const endsAt = body.endsAt === undefined ? null : parseTimestamp("endsAt", body.endsAt);
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) {
    throw invalid("endsAt", '"endsAt" must be after "startsAt"');
  }
  if (body.discount.type === "percent" && body.discount.value > 100) {
    throw invalid("discount.value", 'a "percent" discount must be between 1 and 100');
  }
  return {
    name: body.name,
    quantity: body.quantity,
    startsAt,
    endsAt,
    discount: { type: body.discount.type, value: body.discount.value },
  };
}
