// A calibration that cannot start: `kgate calibrate` with both agents' API keys unset names every
// missing key at once, points at `kgate agents`, --frontier / --mid and the config file, gives no
// Docker hint and leaves no run directory; a backend that fails to start leaves none either.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type Backend, CalibrationConfig, calibrate } from "../src/calibrate/index.ts";
import { agentInfo, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const runsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe("kgate calibrate that cannot start", () => {
  it("names every missing key at once, where to fix it, no Docker hint, and no run directory", () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["one"]);
    const agent = (provider: string, apiKeyEnv: string) => ({
      harness: "builtin",
      provider,
      model: `${provider}-model`,
      baseUrl: "http://127.0.0.1:9",
      apiKeyEnv,
    });
    writeFileSync(
      paths.config,
      JSON.stringify({
        agents: {
          frontier: agent("anthropic", "KGATE_TEST_FRONTIER_KEY"),
          mid: agent("openai", "KGATE_TEST_MID_KEY"),
        },
      }),
    );
    const result = kgate(["--root", paths.root, "calibrate", "--run-id", "nokeys"], {
      env: { KGATE_TEST_FRONTIER_KEY: "", KGATE_TEST_MID_KEY: "" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "cannot start: 2 agent configuration(s) need an API key that is not set:\n" +
        "  frontier: KGATE_TEST_FRONTIER_KEY\n" +
        "  mid: KGATE_TEST_MID_KEY\n",
    );
    expect(result.stderr).toContain("`kgate agents`");
    expect(result.stderr).toContain("--frontier / --mid");
    expect(result.stderr).toContain('edit "agents" in kgate.config.json');
    expect(result.stderr).not.toMatch(/docker|sandbox doctor/i);
    expect(runsIn(paths.runs)).toEqual([]);
  });
});

describe("a new run whose backend fails to start", () => {
  it("removes its run directory (it held only the plan) and rethrows", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["one"]);
    const backend: Backend = {
      agents: async (names) => new Map(names.map((n) => [n, agentInfo(n)])),
      start: async () => {
        throw new Error("the harness image could not be built");
      },
    };
    const stderr = new Writable({ write: (_c, _e, done) => done() });
    const run = calibrate(
      { paths, config: CalibrationConfig.parse({}), taskIds: [], runId: "broken", stderr, live: false },
      backend,
    );
    await expect(run).rejects.toThrow("the harness image could not be built");
    expect(existsSync(path.join(paths.runs, "broken"))).toBe(false);
  });
});
