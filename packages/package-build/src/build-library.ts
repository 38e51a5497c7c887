#!/usr/bin/env node
// `floodgate-build-library`: the build script of each private library (its package.json's "build", run by
// turbo from the package's folder).
import { pathToFileURL } from "node:url";
import { emitLibrary } from "./emit-library.ts";

await emitLibrary(pathToFileURL(`${process.cwd()}/`));
