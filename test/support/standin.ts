// Test support: the stand-in CLI as a harness adapter (launched with `node -e <source>`, so nothing
// has to be installed for it), reporting like Claude Code and discovering skills in .claude/skills.
import { readFileSync } from "node:fs";
import path from "node:path";
import { claudeCode } from "../../src/agents/installed/adapters.ts";
import type { HarnessAdapter } from "../../src/agents/installed/harness-adapter.ts";

export const STANDIN_CLI = path.resolve(import.meta.dirname, "standin-cli.mjs");

export const standin: HarnessAdapter = {
  name: "standin",
  skillsDir: ".claude/skills",
  launch(i) {
    return {
      argv: ["node", "--input-type=module", "-e", readFileSync(STANDIN_CLI, "utf8")],
      env: {
        HOME: i.home,
        ANTHROPIC_BASE_URL: i.relayUrl,
        ANTHROPIC_API_KEY: i.token,
        STANDIN_MODEL: i.model,
        STANDIN_MAX_TURNS: String(i.maxTurns),
      },
    };
  },
  report: claudeCode.report,
};
