// A room's guarded traffic, which the `auto` mode compares with admitPerSecond (admit-room-13.lua). The gate runs
// in the user's slot and cannot count in the room's, so each intake counts its guarded requests per room in
// memory and flushes them here about every 100 ms (count-room-traffic-1.lua): `auto` sees a surge that much later.
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { countRoomTraffic as countRoomTrafficScript } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";

export async function countRoomTraffic(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  requests: number,
): Promise<void> {
  await countRoomTrafficScript.run(redis, { stateKey: keys.room(roomId).state, requests });
}
