// Floodgate's one version: the repository root's package.json states it, and the OpenAPI document reads it
// from there rather than holding a second literal. Every workspace package.json carries the same value (npm
// pack needs it in each), and test/versions-in-step.test.ts fails when one of them, or CHANGELOG.md, drifts.
import rootManifest from "../../../../package.json" with { type: "json" };

export const FLOODGATE_VERSION: string = rootManifest.version;
