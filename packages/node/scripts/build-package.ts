// `pnpm build` (turbo's build task, npm's prepack): dist/ from nothing, by the build the published packages
// share. The workspace resolves @floodgate/node to dist/ as a shop does (the worker signs with it), so the
// build runs before anything imports it: ./floodgate test, start and bench, and turbo's typecheck.
import { emitPackage } from "@floodgate/package-build";

await emitPackage(new URL("../", import.meta.url));
