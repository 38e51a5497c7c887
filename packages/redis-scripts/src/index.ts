export { defineScripts, type ScriptedPipeline, type ScriptedRedis } from "./define-scripts.ts";
