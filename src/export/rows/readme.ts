// README.md of a rows export: what each file is, how a trainer calls the reward (verl's
// custom_reward_function, or score() from any Python), and why the folder must stay private.
import { canaryLine, PUBLICATION_WARNING } from "../canary.ts";

export function rowsReadme(o: {
  version: string;
  canaries: readonly string[];
  splits: readonly string[];
  format: "verl" | "jsonl";
  node: boolean;
}): string {
  const ext = o.format === "verl" ? "parquet" : "jsonl";
  const files = o.splits.map((s) => `- \`${s}.${ext}\`: the ${s} rows`).join("\n");
  return `# Rows exported by kgate ${o.version}

${o.canaries.map((c) => `<!-- ${canaryLine(c)} -->`).join("\n")}

**Keep this folder private**: ${PUBLICATION_WARNING}.

${files}
- \`kgate_reward.py\`, \`kgate_compare.py\`: the reward (Python >= 3.9, standard library only)${o.node ? "\n- `kgate_verify.mjs`, `kgate_node/`: kgate's own verification (node >= 18) for rows whose answers only code can judge; the Python module calls it" : ""}
- \`manifest.jsonl\`, \`manifest.parquet\`: one line per row (task, condition, split, digests, calibration, canary)

verl: \`custom_reward_function.path=<this folder>/kgate_reward.py\` (the function is \`compute_score\`),
\`data.train_files=<this folder>/train.${ext}\`. Elsewhere: \`from kgate_reward import score\`;
\`score(reply, row["reward_model"]["ground_truth"])\` returns the reward as \`score\` with the verdict.
\`python3 kgate_reward.py < replies.jsonl\` scores \`{"reply", "ground_truth"}\` lines in one process.
`;
}
