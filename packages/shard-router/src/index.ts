export { BUCKET_COUNT } from "@floodgate/domain";
export { bucketForUser } from "./bucket-for-user.ts";
export { ShardMap } from "./shard-map.ts";
