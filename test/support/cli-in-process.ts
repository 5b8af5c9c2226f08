// Test support: a kgate command line run in this test's process, through the real argv parser
// (buildProgram) and the verb's module, with stdout and stderr captured and ExitError mapped to its
// code as main() maps it. The unit lane's stand-in for a CLI child process where a test is about
// what the command computes and prints, not about the bin, the bundle or a process's exit: it saves
// a Node.js start and a bundle load per call. Command lines only: a usage error of the parser
// itself prints through commander's own output, so tests of argv errors keep the child process.
import { PassThrough } from "node:stream";
import { buildProgram, invokeVerb } from "../../src/cli.ts";
import { ExitError } from "../../src/errors.ts";
import type { CliResult } from "./cli.ts";

export async function kgateInProcess(args: string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const out = new PassThrough().on("data", (c: Buffer) => (stdout += c.toString()));
  const err = new PassThrough().on("data", (c: Buffer) => (stderr += c.toString()));
  let code = 0;
  const program = buildProgram(
    (c) => {
      code = c;
    },
    (verb, rest, ctx) => invokeVerb(verb, rest, { ...ctx, stdout: out, stderr: err }),
  );
  try {
    await program.parseAsync(["node", "kgate", ...args]);
  } catch (e) {
    if (!(e instanceof ExitError)) throw e;
    stderr += `kgate: ${e.message}\n`;
    code = e.code;
  }
  return { code, stdout, stderr };
}
