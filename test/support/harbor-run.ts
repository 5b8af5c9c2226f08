// Test support: runs an exported task folder the way Harbor's docker environment does, with the
// docker CLI: build environment/ (BASE = the local sandbox image), start the container without
// network, run /solution/solve.sh (oracle) or write given outputs, upload tests/ only then, run
// /tests/test.sh and read /logs/verifier/reward.txt (BenchFlow's native layout: oracle/ to /oracle,
// verifier/ to /verifier). Removes every container and image it made but the shared packages layer
// (the Debian packages every export installs, node among them).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterThis } from "./cleanups.ts";

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
const layers = new Set<string>();

/**
 * Keeps the exported Dockerfile's steps before its first COPY (the Debian packages, node among
 * them: about 25 s) as a tagged image, built once per machine and base: every later build of an
 * export, in any test file and run, takes those steps from Docker's cache instead of installing
 * the packages again (removing a test's images would otherwise drop the cached layer with them).
 */
function ensurePackagesLayer(dockerfile: string, base: string): void {
  const steps = dockerfile.slice(0, dockerfile.indexOf("\nCOPY ") + 1);
  const instructions = steps.split("\n").filter((line) => !line.startsWith("#"));
  const digest = createHash("sha256")
    .update(`${base}\n${instructions.join("\n")}`)
    .digest("hex");
  const tag = `kgate-export-test-packages:${digest.slice(0, 16)}`;
  if (layers.has(tag)) return;
  if (docker(["image", "inspect", tag], { check: false }).code !== 0) {
    docker(["build", "-q", "--network", "host", "--build-arg", `BASE=${base}`, "-t", tag, "-"], {
      input: steps,
    });
  }
  layers.add(tag);
}

/**
 * Builds environment/Dockerfile of an exported folder FROM `base`; returns the image tag. The build
 * installs node from Debian (from the packages layer's cache after the first); it uses the host's
 * network, so it does not depend on the daemon's default bridge (which a shared daemon may have
 * lost). Trial containers run without network.
 */
export function buildEnvironment(folder: string, base: string): string {
  ensurePackagesLayer(readFileSync(path.join(folder, "environment", "Dockerfile"), "utf8"), base);
  const tag = `kgate-export-test:${process.pid}-${++counter}`;
  const args = ["build", "-q", "--network", "host", "--build-arg", `BASE=${base}`, "-t", tag];
  docker([...args, path.join(folder, "environment")]);
  afterThis("file", () => docker(["rmi", tag], { check: false }));
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
  afterThis("file", () => docker(["rm", "-f", id], { check: false }));
  return id;
}

export function exec(container: string, script: string, input?: string): DockerResult {
  return docker(["exec", "-i", container, "bash", "-c", script], { input, check: false });
}

/**
 * Harbor's oracle agent: upload solution/ to /solution, chmod +x and run solve.sh in WORKDIR
 * (`dir` "oracle": BenchFlow's native oracle/ to /oracle).
 */
export function runOracle(container: string, folder: string, dir = "solution"): DockerResult {
  docker(["cp", path.join(folder, dir), `${container}:/${dir}`]);
  return exec(container, `chmod +x /${dir}/solve.sh && /${dir}/solve.sh > /logs/agent/oracle.txt 2>&1`);
}

/**
 * Harbor's verifier: upload tests/ to /tests after the agent phase, run test.sh, read the reward
 * files (`dir` "verifier": BenchFlow's native verifier/ to /verifier).
 */
export function runVerifier(
  container: string,
  folder: string,
  dir = "tests",
): { reward: string; rewardJson: string; stdout: string } {
  docker(["cp", path.join(folder, dir), `${container}:/${dir}`]);
  exec(container, `chmod +x /${dir}/test.sh; /${dir}/test.sh > /logs/verifier/test-stdout.txt 2>&1`);
  const reward = exec(container, "cat /logs/verifier/reward.txt").stdout.trim();
  const rewardJson = exec(container, "cat /logs/verifier/reward.json").stdout.trim();
  const stdout = exec(container, "cat /logs/verifier/test-stdout.txt").stdout;
  return { reward, rewardJson, stdout };
}

/**
 * A copy of an exported bom-costing folder whose oracle reads only what the docs promise it: the
 * specification at $KGATE_ARTEFACT_PATH (no default path), its own files in $KGATE_SOLUTION_DIR, the
 * data in the working directory. An export that does not set the variable fails it (KeyError).
 */
export function documentedVariablesOracle(folder: string, dir = "solution"): string {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), "kgate-env-oracle-")), path.basename(folder));
  afterThis("file", () => rmSync(path.dirname(copy), { recursive: true, force: true }));
  cpSync(folder, copy, { recursive: true });
  const solve = path.join(copy, dir, "kgate", "solve.py");
  const source = readFileSync(solve, "utf8");
  const spec = /^SPEC = .*$/m;
  if (!spec.test(source)) throw new Error(`${solve}: no SPEC line to replace`);
  writeFileSync(solve, source.replace(spec, 'SPEC = os.environ["KGATE_ARTEFACT_PATH"]'));
  return copy;
}

/** Files of the container's file system (outside /proc, /sys, /dev), read as root, holding `needle`. */
export function grepFileSystem(container: string, needle: string): string[] {
  const script =
    'grep -rlF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -e "$0" / 2>/dev/null; true';
  const found = docker(["exec", "-u", "root", container, "bash", "-c", script, needle]);
  return found.stdout.split("\n").filter(Boolean);
}
