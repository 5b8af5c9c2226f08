// `kgate calibrate --frontier local --mid local` (issue 47 item 4): one configuration in the frontier
// and mid cells was refused with no way forward (and under --estimate met an internal error); the
// refusal now says why and what to do instead, with exit 2.
import { describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject, writeJson } from "./support/project.ts";

describe("one configuration as both frontier and mid", () => {
  // --estimate: the same refusal as a run's (both expand the cells), without a sandbox to prepare
  it("is refused with the way forward", async () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const local = { harness: "builtin", provider: "openai-compatible", model: "m", apiKeyEnv: null };
    writeJson(paths.config, { agents: { local: { ...local, baseUrl: "http://127.0.0.1:9/v1" } } });
    const args = ["--root", paths.root, "calibrate", "demo", "--frontier", "local", "--mid", "local"];
    const ran = await kgateInProcess([...args, "--estimate"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      'cells "frontier+A" and "mid+A" both run local +A on task "demo": they would be the same trials',
    );
    expect(ran.stderr).toContain("give each cell its own (--frontier <agent> --mid <another>;");
    expect(ran.stderr).toContain("or redefine the cells with --cell");
  });
});
