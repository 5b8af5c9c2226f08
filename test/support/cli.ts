// Test support: runs the real `kgate` bin in a child process and captures its output and exit code.
import { spawnSync } from "node:child_process";
import path from "node:path";

export const KGATE_BIN = path.resolve(import.meta.dirname, "../../bin/kgate.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kgate(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [KGATE_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    input: options.input,
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
