// The program an exported task's tests/test.sh runs inside the container after the agent phase
// (bundled by esbuild into tests/verify.mjs; never imported by kgate itself): reads the declared
// outputs from the work directory, defensively (no symbolic links, regular files, size caps), and
// writes kgate's verdict and the reward (1 or 0; reward.txt and reward.json, as Harbor and BenchFlow
// read them) to the verifier log folder.
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { OutputSpec } from "../task/index.ts";
import {
  JUDGES_NOT_EXPORTED,
  judgesNotAsked,
  type OutputForVerification,
  type Verdict,
  verifyTrial,
} from "../verify/index.ts";
import { alteredData, bundledTask } from "./bundled-task.ts";
import { ExportManifestSchema } from "./manifest.ts";
import { rewardMetrics } from "./reward-metrics.ts";

/** Characters of the verdict's reason and diff kept in verdict.json (the agent chose the bytes). */
const VERDICT_TEXT_CAP = 8000;

/** Why an output path is not read: a link, or a component that is not a folder. */
function unsafeComponent(workdir: string, relative: string): string | null {
  let current = workdir;
  for (const part of relative.split("/")) {
    current = path.join(current, part);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(current);
    } catch {
      return null;
    }
    if (stat.isSymbolicLink())
      return `${path.relative(workdir, current)} is a symbolic link; links are not followed`;
  }
  return null;
}

/** One declared output as the verifier reads it: at most maxBytes, never through a link. */
function readOutput(workdir: string, output: OutputSpec): OutputForVerification {
  const unsafe = unsafeComponent(workdir, output.path);
  if (unsafe) return { path: output.path, status: "rejected", reason: unsafe };
  let fd: number;
  try {
    fd = openSync(path.join(workdir, output.path), "r");
  } catch {
    return { path: output.path, status: "missing", reason: "the file was not written" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { path: output.path, status: "rejected", reason: "is not a regular file" };
    if (stat.size > output.maxBytes) {
      return {
        path: output.path,
        status: "rejected",
        reason: `is ${stat.size} bytes, over the cap of ${output.maxBytes} bytes`,
      };
    }
    // The file may grow after fstat: read at most one byte over the cap, and reject if it is there.
    const bytes = Buffer.alloc(output.maxBytes + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, null);
    }
    if (length > output.maxBytes) {
      return {
        path: output.path,
        status: "rejected",
        reason: `grew over the cap of ${output.maxBytes} bytes`,
      };
    }
    return { path: output.path, status: "collected", bytes: bytes.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

function clipText(text: string | undefined): string | undefined {
  return text === undefined || text.length <= VERDICT_TEXT_CAP ? text : `${text.slice(0, VERDICT_TEXT_CAP)}…`;
}

export async function main(argv: string[]): Promise<number> {
  const [workdir, logDir] = argv;
  if (!workdir || !logDir) {
    process.stderr.write("usage: node verify.mjs <work directory> <verifier log folder>\n");
    return 2;
  }
  const testsDir = path.dirname(fileURLToPath(import.meta.url));
  const manifest = ExportManifestSchema.parse(
    JSON.parse(readFileSync(path.join(testsDir, "manifest.json"), "utf8")),
  );
  const task = bundledTask(testsDir, {
    id: manifest.task,
    taskDigest: manifest.digests.task,
    spec: JSON.parse(readFileSync(path.join(testsDir, "task.json"), "utf8")),
    data: manifest.environment,
  });
  const outputs = task.spec.outputs.map((o) => readOutput(workdir, o));
  const altered = alteredData(task, "tests/environment");
  const verdict: Verdict =
    altered.length > 0
      ? {
          status: "unverified",
          reward: 0,
          score: 0,
          criteria: [],
          attribution: null,
          reason: `the exported data differ from tests/manifest.json: ${altered.join(", ")}`,
        }
      : judgesNotAsked(await verifyTrial(task, outputs), JUDGES_NOT_EXPORTED);
  const record = {
    task: manifest.task,
    condition: manifest.condition,
    kgateVersion: manifest.kgateVersion,
    digests: manifest.digests,
    verdict: { ...verdict, reason: clipText(verdict.reason), diff: clipText(verdict.diff) },
  };
  writeFileSync(path.join(logDir, "verdict.json"), `${JSON.stringify(record, null, 2)}\n`);
  const reward = verdict.status === "pass" ? 1 : 0;
  const rewards = manifest.layout === "harbor-training" ? rewardMetrics(verdict, task.spec) : { reward };
  writeFileSync(path.join(logDir, "reward.json"), `${JSON.stringify(rewards)}\n`);
  writeFileSync(path.join(logDir, "reward.txt"), `${reward}\n`);
  process.stdout.write(
    `kgate verdict for ${manifest.task} (${manifest.condition}): ${verdict.status}, reward ${verdict.reward}${verdict.reason ? `: ${clipText(verdict.reason)}` : ""}\n`,
  );
  return verdict.status === "unverified" ? 1 : 0;
}
