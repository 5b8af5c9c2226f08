// The sandbox image: tagged by the content digest of sandbox/ (and the extra CA bundle), built once
// and reused, with bash, coreutils, python3 and the non-root user; a project may bring its own sandbox/.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { ensureSandboxImage } from "../src/sandbox/docker/image.ts";
import { BUILTIN_SANDBOX_DIR } from "../src/sandbox/image-source.ts";
import { planImage } from "../src/sandbox/index.ts";
import { providerSandbox } from "./support/engine.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

const docker = new DockerClient();

function projectWithSandbox(dockerfile: string) {
  const paths = tempProject();
  mkdirSync(paths.sandbox, { recursive: true });
  writeFileSync(path.join(paths.sandbox, "Dockerfile"), dockerfile);
  return paths;
}

describe("the image tag", () => {
  it("uses kgate's own sandbox/ when the project has none, tagged by its digest", () => {
    const plan = planImage(tempProject(), { extraCaCerts: null });
    expect(plan.contextDir).toBe(BUILTIN_SANDBOX_DIR);
    expect(plan.tag).toBe(`kgate-sandbox:${plan.digest.slice(0, 12)}`);
  });

  it("changes when a file of sandbox/ or the extra CA bundle changes, and only then", () => {
    const paths = projectWithSandbox("FROM scratch\n");
    const ca = path.join(paths.root, "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    const a = planImage(paths, { extraCaCerts: null });
    expect(planImage(paths, { extraCaCerts: null }).tag).toBe(a.tag);
    const withCa = planImage(paths, { extraCaCerts: ca });
    expect(withCa.tag).not.toBe(a.tag);
    writeFileSync(path.join(paths.sandbox, "Dockerfile"), "FROM scratch\nLABEL x=1\n");
    expect(planImage(paths, { extraCaCerts: null }).tag).not.toBe(a.tag);
  });

  it("names the CA file it cannot read", () => {
    expect(() => planImage(tempProject(), { extraCaCerts: "/nonexistent/ca.pem" })).toThrow(
      /cannot read the extra CA certificates \/nonexistent\/ca\.pem/,
    );
  });
});

describe("the built image", () => {
  it("is reused: a second ensureSandboxImage builds nothing", async () => {
    const lines: string[] = [];
    const tag = await ensureSandboxImage(tempProject(), { onProgress: (l) => lines.push(l) });
    expect(tag).toBe(sandboxImage());
    expect(lines).toEqual([]);
  });

  it("has bash, coreutils, python3 with its standard library, and the agent user", async () => {
    await using box = await providerSandbox({
      image: sandboxImage(),
      limits: { cpus: 1, memoryMb: 256, pids: 64 },
      labels: { kgate: "1", "kgate.run": `test-image-${process.pid}` },
    });
    const result = await box.exec([
      "bash",
      "-c",
      'echo "$BASH_VERSION" | cut -d. -f1; timeout --version | head -1; id -un; echo "$HOME";' +
        " python3 -c 'import csv, json, sqlite3, decimal, statistics, hashlib; print(\"stdlib ok\")'",
    ]);
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n")).toEqual([
      "5",
      "timeout (GNU coreutils) 9.1",
      "agent",
      "/home/agent",
      "stdlib ok",
      "",
    ]);
  });

  it("a project's own sandbox/ is built on the Debian base, saying where the base came from", async () => {
    const paths = projectWithSandbox(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${BASE} is a Dockerfile build argument
      'ARG BASE=debian:bookworm-slim\nFROM ${BASE}\nRUN echo project > /project-marker\nCMD ["sleep", "infinity"]\n',
    );
    const stale = await docker.imageId(planImage(paths).tag);
    if (stale) await docker.removeImage(stale);
    const lines: string[] = [];
    const tag = await ensureSandboxImage(paths, { onProgress: (l) => lines.push(l) });
    try {
      expect(tag).toBe(planImage(paths).tag);
      expect(lines[0]).toBe(`building the sandbox image ${tag} from ${paths.sandbox}`);
      if (lines.some((l) => l.startsWith("pulling debian:bookworm-slim failed"))) {
        expect(lines).toContain(
          "falling back to a base bootstrapped from Debian packages (debootstrap + import)",
        );
      }
      expect(lines.at(-1)).toBe(`built ${tag}`);
      const id = await docker.imageId(tag);
      expect(id).not.toBeNull();
    } finally {
      const id = await docker.imageId(tag);
      if (id) await docker.removeImage(id);
    }
  }, 600_000);
});
