// BenchFlow's native task package (its task standard: task.md, environment/, oracle/, verifier/ with
// verifier.md and rubrics/): task.md is the task config as YAML front matter (BenchFlow's `sandbox`
// table, schema 1.3) and the instruction as its `## prompt` section (a reserved heading in the
// instruction is escaped, `\## prompt`, as BenchFlow's own renderer does); verifier.md declares
// kgate's verifier as a script strategy with one deterministic rubric dimension and the reward files.
import { stringify } from "yaml";
import type { LoadedTask } from "../task/index.ts";
import type { ExportManifest } from "./manifest.ts";
import { taskConfig } from "./task-toml.ts";

/** BenchFlow's TaskConfig schema version (task.md front matter). */
const BENCHFLOW_SCHEMA_VERSION = "1.3";
/** BenchFlow's reserved section headings of a task.md body. */
const RESERVED = /^##\s+(prompt|role:[A-Za-z0-9_.-]+|scene:[A-Za-z0-9_.-]+|user-persona)\s*$/gim;

export function taskMd(task: LoadedTask, manifest: ExportManifest, name: string): string {
  const { environment, ...config } = taskConfig(task, manifest, name);
  const front = stringify({ ...config, schema_version: BENCHFLOW_SCHEMA_VERSION, sandbox: environment });
  const body = task.instruction.toString("utf8").replace(RESERVED, (heading) => `\\${heading}`);
  return `---\n${front}---\n\n## prompt\n\n${body}`;
}

export function verifierMd(task: LoadedTask): string {
  const front = stringify({
    document_version: "0.3",
    verifier: {
      name: `kgate-${task.id}`,
      default_strategy: "deterministic",
      strategies: { deterministic: { type: "script", command: "./test.sh" } },
      rubric: {
        combine: "weighted_sum",
        dimensions: { correctness: { weight: 1.0, source: "deterministic" } },
        files: { human: "rubrics/verifier.md" },
      },
      outputs: { reward_text: "/logs/verifier/reward.txt", reward_json: "/logs/verifier/reward.json" },
    },
  });
  return `---
${front}---

## verifier intent

kgate's verification of task ${task.id}, bundled for node (verify.mjs, verifier.mjs): it reads the
outputs declared in task.json from the work directory (no symbolic link followed, each capped at its
maxBytes), solves the reference answer from the task's own data (environment/ here, never the work
directory the agent could change), and writes reward 1 when kgate's verdict passes, else 0, to
reward.txt and reward.json, with the verdict (criteria, attribution, reason, diff) in verdict.json.
`;
}

export function rubricMd(task: LoadedTask): string {
  const outputs = task.spec.outputs.map((o) => `- \`${o.path}\` (${o.format})`).join("\n");
  return `# Scoring contract of ${task.id}

One dimension, **correctness** (weight 1, deterministic): kgate's verdict on the declared outputs.

${outputs}

Numbers are compared with the reference answer at the tolerance task.json declares (1e-4 by
default), strings exactly or after the declared normalisation, rows by key; a text judged by
criteria passes when every criterion passes (reward = product of criteria). A missing, linked,
oversized or malformed output fails. The reward is 1 for a pass, 0 otherwise.
`;
}
