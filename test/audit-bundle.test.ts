// The fast start: scripts/build.mjs bundles the CLI with esbuild, the bundle audits like the sources,
// and KGATE_NO_BUNDLE makes bin/kgate.js run the TypeScript sources through tsx instead.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

let built = false;
/** Builds the bundle into OUT once for this file. */
function buildOnce(): void {
  if (built) return;
  const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build.mjs"), OUT], {
    encoding: "utf8",
  });
  expect(build.status, build.stderr).toBe(0);
  expect(existsSync(path.join(OUT, "cli.js"))).toBe(true);
  built = true;
}

/** `kgate <args>` run from the bundle in OUT. */
function bundledKgate(args: string[]) {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(OUT, "cli.js")).href)}); process.exitCode = await main(process.argv);`;
  return spawnSync(process.execPath, ["--input-type=module", "-e", script, "kgate", ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("the CLI bundle", () => {
  it("builds with esbuild and audits exactly like the TypeScript sources", () => {
    buildOnce();
    const paths = tempProject();
    writeAuditTask(paths, "t", { instruction: leak });
    const bundled = bundledKgate(["--root", paths.root, "audit", "--json"]);
    const fromSources = kgate(["--root", paths.root, "audit", "--json"], { env: { KGATE_NO_BUNDLE: "1" } });
    expect(bundled.status, bundled.stderr).toBe(1);
    expect(fromSources.code).toBe(1);
    expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse(fromSources.stdout));
  });

  it("locates a JSON syntax error in an audit file (jsonc-parser, loaded from node_modules)", () => {
    buildOnce();
    const paths = tempProject();
    writeAuditTask(paths, "t");
    writeFileSync(path.join(paths.audits, "t.json"), '{\n  "items": [\n');
    const bundled = bundledKgate(["--root", paths.root, "audit"]);
    expect(bundled.status, bundled.stderr).toBe(2);
    expect(`${bundled.stdout}${bundled.stderr}`).toContain(
      "audits/t.json: line 3, column 1: invalid JSON: CloseBracketExpected, found the end of the file",
    );
  });

  it("loads zod/mini and no classic zod for `kgate audit` (the pre-commit hook's start-up)", () => {
    buildOnce();
    const read = (file: string) => readFileSync(path.join(OUT, file), "utf8");
    /** The bundle's files that `file` imports, directly or not (static and dynamic imports). */
    const closure = (file: string, seen = new Set<string>()): Set<string> => {
      seen.add(file);
      for (const [, dep] of read(file).matchAll(/(?:from |import\()"\.\/([\w-]+\.js)"/g)) {
        if (!seen.has(dep!)) closure(dep!, seen);
      }
      return seen;
    };
    // The chunk of the audit command (esbuild names the audit's own modules' chunk audit-* too).
    const entry = readdirSync(OUT).find(
      (f) => /^audit-\w+\.js$/.test(f) && read(f).includes("// src/commands/audit.ts"),
    );
    expect(entry).toBeDefined();
    const loaded = [...closure(entry!)].map((f) => readFileSync(path.join(OUT, f), "utf8")).join("\n");
    expect(loaded).toContain("node_modules/zod/v4/mini/");
    expect(loaded).not.toContain("node_modules/zod/v4/classic/");
    expect(loaded).not.toMatch(/from "zod"/);
    // The task loader (classic zod schemas) is the one module the audit must keep out of its way.
    expect(loaded).not.toContain("// src/task/schema.ts");
  });

  it("runs from the sources through tsx when KGATE_NO_BUNDLE is set", () => {
    const help = kgate(["audit", "--help"], { env: { KGATE_NO_BUNDLE: "1" } });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--staged/);
  });
});
