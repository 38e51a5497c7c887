// `pnpm --filter @floodgate/checkout-sdk generate`: rewrites src/server-types.ts from the server's schemas.
import { writeFile } from "node:fs/promises";
import { renderServerTypes, SERVER_TYPES_FILE } from "./server-types.ts";

await writeFile(SERVER_TYPES_FILE, renderServerTypes());
