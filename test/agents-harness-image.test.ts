// The harness image: built once from the sandbox image (cached by digest), Claude Code and Codex CLI
// installed at their pinned versions, and both start offline in a sandbox without network.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureHarnessImage, INSTALLED_HARNESSES, planHarnessImage } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { containerLabels, DockerClient, DockerSandbox, ensureSandboxImage } from "../src/sandbox/index.ts";

const paths = projectPaths(path.resolve(import.meta.dirname, ".."));
let image: string;
let sandbox: DockerSandbox;

beforeAll(async () => {
  image = await ensureHarnessImage(paths, {
    onProgress: (line) => process.stderr.write(`[harness image] ${line}\n`),
  });
  sandbox = await DockerSandbox.create({
    image,
    limits: { cpus: 1, memoryMb: 512, pids: 128 },
    labels: containerLabels({ runId: "test-harness-image", trialId: "version", taskId: "none" }),
  });
}, 900_000);

afterAll(async () => {
  await sandbox?.remove();
});

describe("harness image", () => {
  it("is tagged by the digest of sandbox/harness, the pinned versions and the sandbox image", async () => {
    const plan = planHarnessImage(paths, await ensureSandboxImage(paths));
    expect(image).toBe(plan.tag);
    expect(plan.packages).toBe("@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0");
    expect(planHarnessImage(paths, "kgate-sandbox:other").tag).not.toBe(plan.tag);
    expect(await new DockerClient().imageId(image)).not.toBeNull();
    expect(await ensureHarnessImage(paths)).toBe(image);
  });

  it("runs `claude --version` and `codex --version` offline, as the non-root sandbox user", async () => {
    const claude = await sandbox.exec(["claude", "--version"], { timeoutSec: 60 });
    expect(claude.stdout).toContain(`${INSTALLED_HARNESSES["claude-code"].version} (Claude Code)`);
    const codex = await sandbox.exec(["codex", "--version"], { timeoutSec: 60 });
    expect(codex.stdout).toContain(`codex-cli ${INSTALLED_HARNESSES.codex.version}`);
    const who = await sandbox.exec(["sh", "-c", "id -u; ls /opt/kgate"]);
    expect(who.stdout).toBe("1000\nrelay-forwarder.mjs\n");
  });

  it("has no network: the registry the image was built from is unreachable at run time", async () => {
    const probe = await sandbox.exec(
      [
        "node",
        "-e",
        "fetch('https://registry.npmjs.org/').then(() => console.log('reached'), () => console.log('offline'))",
      ],
      { timeoutSec: 30 },
    );
    expect(probe.stdout.trim()).toBe("offline");
  });
});
