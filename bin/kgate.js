#!/usr/bin/env node
// Entry point of the `kgate` command: loads the TypeScript sources through tsx, then runs the CLI.
// Both tsx hooks are registered: task verifiers (verifiers/<id>.ts) live in the user's project,
// which may be an ES module or a CommonJS package scope.
import { register as registerCommonJs } from "tsx/cjs/api";
import { register } from "tsx/esm/api";

register();
registerCommonJs();
const { main } = await import("../src/cli.ts");
process.exitCode = await main(process.argv);
