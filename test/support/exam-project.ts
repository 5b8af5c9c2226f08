// Test support: a throw-away project whose item pool the scripted exam-taker of exam-model.ts can
// answer (its temporary folder goes after the test, through project.ts's vitest hooks).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../../src/project.ts";
import { tempProject, writeJson } from "./project.ts";

/**
 * A project with items/arith.jsonl (`What is i + 10 i?` for i = 1..8, answer 11 i, difficulty i) and
 * one agent `examiner` on the loopback server (its API key in `keyEnv`; `extra` adds to its config).
 */
export function arithExamProject(
  provider: "anthropic" | "openai-compatible",
  url: string,
  keyEnv: string,
  extra: Record<string, unknown> = {},
): ProjectPaths {
  const project = tempProject();
  mkdirSync(path.join(project.root, "items"));
  const lines = Array.from({ length: 8 }, (_, i) =>
    JSON.stringify({
      id: `sum-${i + 1}`,
      prompt: `What is ${i + 1} + ${10 * (i + 1)}?`,
      answer: 11 * (i + 1),
      checker: "number",
      difficulty: i + 1,
    }),
  );
  writeFileSync(path.join(project.root, "items", "arith.jsonl"), `${lines.join("\n")}\n`);
  writeJson(project.config, {
    agents: {
      examiner: {
        harness: "builtin",
        provider,
        model: "scripted-examiner",
        baseUrl: url,
        apiKeyEnv: keyEnv,
        ...extra,
      },
    },
  });
  return project;
}
