export {
  defineScripts,
  type ScriptCommands,
  type ScriptedCluster,
  type ScriptedPipeline,
  type ScriptedRedis,
  type ScriptedSingleRedis,
} from "./define-scripts.ts";
