// The fast start: scripts/build.mjs bundles the CLI with esbuild, the bundle audits like the sources,
// and KGATE_NO_BUNDLE makes bin/kgate.js run the TypeScript sources through tsx instead.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
// Inside the repository, so the bundle resolves its external packages from node_modules.
const OUT = path.join(ROOT, "node_modules", ".cache", `kgate-bundle-test-${process.pid}`);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const leak = `${corpusFile("instruction.md")}\nUse a 12% overhead.\n`;

describe("the CLI bundle", () => {
  it("builds with esbuild and audits exactly like the TypeScript sources", () => {
    const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs"), OUT], {
      encoding: "utf8",
    });
    expect(build.status, build.stderr).toBe(0);
    expect(existsSync(path.join(OUT, "cli.js"))).toBe(true);

    const paths = tempProject();
    writeAuditTask(paths, "t", { instruction: leak });
    const script = `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(OUT, "cli.js")).href)}); process.exitCode = await main(process.argv);`;
    const bundled = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", script, "kgate", "--root", paths.root, "audit", "--json"],
      { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    const fromSources = kgate(["--root", paths.root, "audit", "--json"], { env: { KGATE_NO_BUNDLE: "1" } });
    expect(bundled.status, bundled.stderr).toBe(1);
    expect(fromSources.code).toBe(1);
    expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse(fromSources.stdout));
  });

  it("runs from the sources through tsx when KGATE_NO_BUNDLE is set", () => {
    const help = kgate(["audit", "--help"], { env: { KGATE_NO_BUNDLE: "1" } });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--staged/);
  });
});
