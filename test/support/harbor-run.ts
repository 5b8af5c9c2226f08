// Test support: runs an exported task folder the way Harbor's docker environment does, with the
// docker CLI: build environment/ (BASE = the local sandbox image), start the container without
// network, run /solution/solve.sh (oracle) or write given outputs, upload tests/ only then, run
// /tests/test.sh and read /logs/verifier/reward.txt. Removes every container and image it made.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll } from "vitest";

const made = { containers: [] as string[], images: [] as string[] };
afterAll(() => {
  for (const id of made.containers.splice(0)) docker(["rm", "-f", id], { check: false });
  for (const tag of made.images.splice(0)) docker(["rmi", tag], { check: false });
});

export interface DockerResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function docker(args: string[], options: { input?: string; check?: boolean } = {}): DockerResult {
  const result = spawnSync("docker", args, {
    input: options.input,
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = { code: result.status ?? -1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  if (options.check !== false && out.code !== 0) {
    throw new Error(`docker ${args.join(" ")} exited with ${out.code}: ${out.stderr.slice(-2000)}`);
  }
  return out;
}

let counter = 0;

/**
 * Builds environment/Dockerfile of an exported folder FROM `base`; returns the image tag. The build
 * installs node from Debian; it uses the host's network, so it does not depend on the daemon's
 * default bridge (which a shared daemon may have lost). Trial containers run without network.
 */
export function buildEnvironment(folder: string, base: string): string {
  const tag = `kgate-export-test:${process.pid}-${++counter}`;
  const args = ["build", "-q", "--network", "host", "--build-arg", `BASE=${base}`, "-t", tag];
  docker([...args, path.join(folder, "environment")]);
  made.images.push(tag);
  return tag;
}

/** A started container of `image`, as Harbor starts one for a trial: no network, its resources. */
export function startEnvironment(image: string): string {
  const id = docker([
    "run",
    "-d",
    "--network",
    "none",
    "--memory",
    "1g",
    "--label",
    `kgate-export-test=${process.pid}`,
    image,
    "sleep",
    "900",
  ]).stdout.trim();
  made.containers.push(id);
  return id;
}

export function exec(container: string, script: string, input?: string): DockerResult {
  return docker(["exec", "-i", container, "bash", "-c", script], { input, check: false });
}

/** Harbor's oracle agent: upload solution/ to /solution, chmod +x and run solve.sh in WORKDIR. */
export function runOracle(container: string, folder: string): DockerResult {
  docker(["cp", path.join(folder, "solution"), `${container}:/solution`]);
  return exec(container, "chmod +x /solution/solve.sh && /solution/solve.sh > /logs/agent/oracle.txt 2>&1");
}

/** Harbor's verifier: upload tests/ to /tests after the agent phase, run test.sh, read the reward. */
export function runVerifier(container: string, folder: string): { reward: string; stdout: string } {
  docker(["cp", path.join(folder, "tests"), `${container}:/tests`]);
  exec(container, "chmod +x /tests/test.sh; /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1");
  const reward = exec(container, "cat /logs/verifier/reward.txt").stdout.trim();
  const stdout = exec(container, "cat /logs/verifier/test-stdout.txt").stdout;
  return { reward, stdout };
}

/** Files of the container's file system (outside /proc, /sys, /dev), read as root, holding `needle`. */
export function grepFileSystem(container: string, needle: string): string[] {
  const script =
    'grep -rlF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -e "$0" / 2>/dev/null; true';
  const found = docker(["exec", "-u", "root", container, "bash", "-c", script, needle]);
  return found.stdout.split("\n").filter(Boolean);
}
