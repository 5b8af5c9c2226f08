// Test support: runs an exported training folder (`kgate export harbor --for-training`) the way
// Harbor's docker flow runs a task in separate-verifier mode, on a given daemon, with the docker CLI:
// pull both images by digest (credentials from a Docker config folder), start the agent's container
// without network, run the oracle (solution/ to /solution, solve.sh), collect the declared
// artifacts at their absolute paths, remove the agent's container, start the verifier's container
// (its image holds /tests), restore the artifacts at their original paths, run /tests/test.sh and
// read /logs/verifier/reward.json. Removes the containers it made.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { tempDir } from "./project.ts";

interface Daemon {
  host: string;
  /** DOCKER_CONFIG folder with the registry's credentials. */
  configDir: string;
}

function docker(d: Daemon, args: string[], check = true): { code: number; stdout: string; stderr: string } {
  const run = spawnSync("docker", ["--config", d.configDir, "-H", d.host, ...args], {
    encoding: "utf8",
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = { code: run.status ?? -1, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
  if (check && out.code !== 0) throw new Error(`docker ${args.join(" ")}: ${out.stderr.slice(-2000)}`);
  return out;
}

interface TrainingToml {
  artifacts: string[];
  environment: { docker_image: string };
  verifier: { environment_mode: string; environment: { docker_image: string } };
}

export function trainingToml(folder: string): TrainingToml {
  return parse(readFileSync(path.join(folder, "task.toml"), "utf8")) as unknown as TrainingToml;
}

function started(d: Daemon, image: string): string {
  return docker(d, ["run", "-d", "--network", "none", "--memory", "1g", image, "sleep", "900"]).stdout.trim();
}

export interface SeparateRun {
  rewards: Record<string, number>;
  verdict: { verdict: { status: string; attribution: string | null } };
  oracle: string;
  /** The image ids the daemon pulled, by reference. */
  pulled: Record<string, string>;
}

export function runSeparate(folder: string, d: Daemon): SeparateRun {
  const config = trainingToml(folder);
  const [agentImage, verifierImage] = [
    config.environment.docker_image,
    config.verifier.environment.docker_image,
  ];
  const pulled: Record<string, string> = {};
  for (const image of [agentImage, verifierImage]) {
    docker(d, ["pull", "-q", image]);
    pulled[image] = docker(d, ["image", "inspect", "--format", "{{.Id}}", image]).stdout.trim();
  }
  const collected = tempDir("kgate-artifacts-");
  const agent = started(d, agentImage);
  let oracle = "";
  try {
    docker(d, ["cp", path.join(folder, "solution"), `${agent}:/solution`]);
    const run = docker(
      d,
      ["exec", agent, "bash", "-c", "chmod +x /solution/solve.sh && /solution/solve.sh"],
      false,
    );
    oracle = run.stdout + run.stderr;
    for (const artifact of config.artifacts) {
      mkdirSync(path.dirname(path.join(collected, artifact)), { recursive: true });
      docker(d, ["cp", `${agent}:${artifact}`, path.join(collected, artifact)], false);
    }
  } finally {
    docker(d, ["rm", "-f", agent], false);
  }
  const verifier = started(d, verifierImage);
  try {
    docker(d, ["exec", verifier, "mkdir", "-p", "/logs/verifier"]);
    for (const artifact of config.artifacts) {
      const source = path.join(collected, artifact);
      if (spawnSync("test", ["-f", source]).status !== 0) continue;
      docker(d, ["exec", verifier, "mkdir", "-p", path.posix.dirname(artifact)]);
      docker(d, ["cp", source, `${verifier}:${artifact}`]);
    }
    docker(
      d,
      ["exec", verifier, "bash", "-c", "bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1"],
      false,
    );
    const read = (file: string) => docker(d, ["exec", verifier, "cat", `/logs/verifier/${file}`]).stdout;
    return {
      rewards: JSON.parse(read("reward.json")),
      verdict: JSON.parse(read("verdict.json")),
      oracle,
      pulled,
    };
  } finally {
    docker(d, ["rm", "-f", verifier], false);
  }
}
