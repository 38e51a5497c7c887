// What the intake needs of a room's lanes outside the scripts (room-lanes.lua, beside this, keeps them): the
// width of a lane's score band in {room-<id>}:queue. test/room-lanes-band.test.ts holds the two equal.

/** A waiting ticket's score is band * LANE_BAND + its sequence number; band 0 (and below) the default queue. */
export const LANE_BAND = 2 ** 40;

/** The lane band of a queue score: 0 for the default queue (a bypass waiting for room scores below 0). */
export const laneBand = (score: number): number => Math.max(0, Math.floor(score / LANE_BAND));
