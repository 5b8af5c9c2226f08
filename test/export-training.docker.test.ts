// `kgate export harbor --for-training`: bom-costing's +A and -A folders from a (scripted) calibration
// run, their images built on the local daemon through the sandbox provider and pushed to a real
// registry (Debian's docker-registry on 127.0.0.1, htpasswd; credentials from a Docker config
// folder); then a second dockerd pulls both images by digest and runs each folder as Harbor's docker
// flow runs it in separate-verifier mode (test/support/harbor-separate.ts): the oracle earns reward
// 1 with its metrics under +A, 0 under -A. Four images are built (the packages layer is shared).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportCanary } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { afterThis } from "./support/cleanups.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { runSeparate, type SeparateRun } from "./support/harbor-separate.ts";
import { tempDir } from "./support/project.ts";
import { type Registry, startRegistry } from "./support/registry.ts";
import { scriptedRun } from "./support/scripted-run.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
const task = loadValidTask(REPO, "bom-costing");
const DIGEST = /^sha256:[0-9a-f]{64}$/;

let registry: Registry;
let second: SecondDaemon;
let out = "";
let exported: Awaited<ReturnType<typeof kgateInProcess>>;
const runs: Record<string, SeparateRun> = {};

/** Runs an export with DOCKER_CONFIG pointing at `configDir` (kgate reads it when it pushes). */
async function exportWith(configDir: string, args: string[]) {
  const before = process.env.DOCKER_CONFIG;
  process.env.DOCKER_CONFIG = configDir;
  try {
    return await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "harbor",
      "bom-costing",
      "--for-training",
      ...args,
    ]);
  } finally {
    if (before === undefined) delete process.env.DOCKER_CONFIG;
    else process.env.DOCKER_CONFIG = before;
  }
}

interface Environment {
  docker_image: string;
  network_mode?: string;
  allow_internet?: boolean;
}

/** The fields of a training task.toml these tests read. */
interface TrainingToml {
  schema_version: string;
  artifacts: string[];
  environment: Environment;
  verifier: { environment_mode: string; environment: Environment };
  metadata: Record<string, unknown> & {
    verifier_sha256: string;
    calibration: { cells: Array<{ cell: string; wilson_lo: number }> };
  };
}

/** Python's tomllib (Harbor's parser) reading a folder's task.toml. */
function tomllib(folder: string): TrainingToml {
  const script = "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))";
  const run = spawnSync("python3", ["-c", script, path.join(folder, "task.toml")], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  registry = await startRegistry();
  const dir = tempDir("kgate-training-", "file");
  const run = await scriptedRun(REPO, dir, ["bom-costing"]);
  out = path.join(dir, "out");
  exported = await exportWith(registry.configDir, [
    "--push",
    registry.address,
    "--from",
    run,
    "--only",
    "retained",
    "--condition",
    "+A",
    "--condition",
    "-A",
    "--out",
    out,
    "--json",
  ]);
  second = await startSecondDaemon();
  for (const name of ["bom-costing-plus-a", "bom-costing-minus-a"]) {
    runs[name] = runSeparate(path.join(out, name), { host: second.host, configDir: registry.configDir });
  }
  // The registry's names of the pushed images (its port is this run's); the content-addressed
  // kgate-export/... tags stay, as the sandbox image does, and are found again by the next run.
  afterThis("file", () => {
    const names = spawnSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}"], {
      encoding: "utf8",
    });
    for (const name of names.stdout.split("\n")) {
      if (name.startsWith(`${registry.address}/`)) spawnSync("docker", ["rmi", name]);
    }
  });
});

afterAll(async () => {
  await second?.stop();
});

describe("kgate export harbor --for-training --push <registry>", () => {
  it("writes Harbor's schema 1.4 task.toml: images by digest, a separate verifier, the outputs as artifacts", () => {
    expect(exported.stderr).toContain("publishing them defeats the gate");
    expect(exported.code).toBe(0);
    const plus = tomllib(path.join(out, "bom-costing-plus-a"));
    expect(plus.schema_version).toBe("1.4");
    expect(plus.artifacts).toEqual(["/home/agent/work/output/assembly_costs.csv"]);
    const [agentRepo, agentDigest] = plus.environment.docker_image.split("@");
    expect(agentRepo).toBe(`${registry.address}/bom-costing-plus-a`);
    expect(agentDigest).toMatch(DIGEST);
    expect(plus.verifier.environment_mode).toBe("separate");
    expect(plus.verifier.environment.docker_image.split("@")[0]).toBe(
      `${registry.address}/bom-costing-plus-a-verifier`,
    );
    expect(plus.verifier.environment.network_mode).toBe("no-network");
    expect(plus.environment.network_mode).toBe("no-network");
    expect(plus.environment.allow_internet).toBeUndefined();
  });

  it("puts the calibration, the digests, the canary and the artefact's delivery in [metadata]", () => {
    const plus = tomllib(path.join(out, "bom-costing-plus-a"));
    const minus = tomllib(path.join(out, "bom-costing-minus-a"));
    expect(plus.metadata).toMatchObject({
      kgate_task: "bom-costing",
      kgate_condition: "+A",
      kgate_layout: "harbor-training",
      task_sha256: task.digests.task,
      instruction_sha256: task.digests.instruction,
      artefact_sha256: task.artefact.sha256,
      artefact_delivery: "file",
      artefact_path: task.spec.artefact.path,
      canary: exportCanary(task),
    });
    expect(minus.metadata).toMatchObject({ artefact_sha256: "none", artefact_delivery: "none" });
    expect(plus.metadata.calibration).toMatchObject({ run: "cal-test", decision: "retain", borderline: [] });
    const frontier = plus.metadata.calibration.cells.find((c) => c.cell === "frontier+A");
    // Wilson, 5/5 at z = 1.96: (1.38415 - 0.38415) / 1.76829 = 0.5655; the upper bound is 1.
    expect(frontier).toMatchObject({ passes: 5, runs: 5, wilson_hi: 1 });
    expect(frontier!.wilson_lo).toBeCloseTo(0.5655, 4);
    // The verifier digest: kgate's verification and the task's verifier as bundled (the files less
    // their first line, the canary comment).
    const tests = path.join(out, "bom-costing-plus-a", "tests");
    const body = (f: string) => readFileSync(path.join(tests, f), "utf8").split("\n").slice(1).join("\n");
    const sha = createHash("sha256").update(body("verify.mjs")).update(body("verifier.mjs")).digest("hex");
    expect(plus.metadata.verifier_sha256).toBe(sha);
  });

  it("marks every file kgate writes with the export canary, and lists the folders in the manifest", () => {
    const canary = exportCanary(task);
    const folder = path.join(out, "bom-costing-plus-a");
    for (const file of [
      "task.toml",
      "environment/Dockerfile",
      "tests/Dockerfile",
      "tests/test.sh",
      "tests/verify.mjs",
      "tests/verifier.mjs",
      "tests/manifest.json",
      "solution/solve.sh",
    ]) {
      expect(readFileSync(path.join(folder, file), "utf8"), file).toContain(canary);
    }
    expect(readFileSync(path.join(folder, "tests/test.sh"), "utf8").startsWith("#!/bin/bash\n")).toBe(true);
    const lines = readFileSync(path.join(out, "manifest.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.path, l.form, l.images.agent.split("@")[0]])).toEqual([
      ["bom-costing-plus-a", "harbor", `${registry.address}/bom-costing-plus-a`],
      ["bom-costing-minus-a", "harbor", `${registry.address}/bom-costing-minus-a`],
    ]);
    expect(readdirSync(out).sort()).toEqual([
      "bom-costing-minus-a",
      "bom-costing-plus-a",
      "manifest.jsonl",
      "manifest.parquet",
    ]);
  });

  it("a second daemon pulls both images by digest: the same images the provider built and pushed", () => {
    for (const name of ["bom-costing-plus-a", "bom-costing-minus-a"]) {
      const config = tomllib(path.join(out, name));
      for (const ref of [config.environment.docker_image, config.verifier.environment.docker_image]) {
        const local = spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", ref], {
          encoding: "utf8",
        });
        expect(runs[name]!.pulled[ref], ref).toBe(local.stdout.trim());
      }
    }
  });

  it("runs as Harbor's separate-verifier flow: the oracle earns reward 1 with its metrics under +A", () => {
    // bom-costing declares one perturbed variant: the failure labels are default-convention,
    // perturbed-convention:perturbed, format and other; its one output is one criterion.
    expect(runs["bom-costing-plus-a"]!.rewards).toEqual({
      reward: 1,
      criteria_mean: 1,
      unverified: 0,
      "criterion: output/assembly_costs.csv": 1,
      "failure: default-convention": 0,
      "failure: perturbed-convention:perturbed": 0,
      "failure: format": 0,
      "failure: other": 0,
    });
    expect(runs["bom-costing-plus-a"]!.verdict.verdict.status).toBe("pass");
  });

  it("and 0 under -A: the oracle finds no specification, writes nothing, and the verifier says so", () => {
    expect(runs["bom-costing-minus-a"]!.rewards).toMatchObject({
      reward: 0,
      criteria_mean: 0,
      "criterion: output/assembly_costs.csv": 0,
      "failure: format": 1,
    });
    expect(runs["bom-costing-minus-a"]!.oracle).toContain("not present");
  });

  it("keeps grading out of the agent's image: no /tests there, and the -A image holds no artefact byte", () => {
    const config = tomllib(path.join(out, "bom-costing-minus-a"));
    const inAgent = (script: string) =>
      spawnSync(
        "docker",
        ["run", "--rm", "--network", "none", config.environment.docker_image, "bash", "-c", script],
        {
          encoding: "utf8",
        },
      );
    expect(inAgent("test -e /tests || test -e /solution; echo $?").stdout.trim()).toBe("1");
    const canary = task.artefact.canary!;
    expect(
      inAgent(`grep -rlF --exclude-dir=proc --exclude-dir=sys -e ${canary} / 2>/dev/null; true`).stdout,
    ).toBe("");
    const verifier = spawnSync("docker", [
      "run",
      "--rm",
      "--network",
      "none",
      config.verifier.environment.docker_image,
      "test",
      "-x",
      "/tests/test.sh",
    ]);
    expect(verifier.status).toBe(0);
  });

  it("pushes with Docker's own credentials only: without them the registry refuses and no folder is left", async () => {
    const empty = tempDir("kgate-docker-config-");
    const again = path.join(tempDir("kgate-training-again-"), "out");
    const refused = await exportWith(empty, [
      "--push",
      registry.address,
      "--condition",
      "+A",
      "--out",
      again,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /bom-costing .*(unauthorized|no basic auth credentials|authentication required)/,
    );
    expect(readdirSync(again).filter((f) => statSync(path.join(again, f)).isDirectory())).toEqual([]);
  });
});
