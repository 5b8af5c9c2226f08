// The repository stands alone: no tracked file under src/, test/, bench/, scripts/ or .ci/ names a
// path outside it (a machine's absolute path, the shared folder beside a checkout, a relative path
// that climbs above the root), so a fresh clone with nothing beside it runs every test.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { outsidePaths } from "./support/outside-paths.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const FOLDERS = ["src", "test", "bench", "scripts", ".ci"];
// The machine's folders, spelt in pieces so that this file does not name them itself.
const WORK = `/${"work"}`;
const SHARED = `..${"/"}shared`;
/** The file's own folder as the code names it, spelt in pieces for the same reason. */
const OWN = `import.meta.${"dirname"}`;
const OWN_URL = `import.meta.${"url"}`;

describe("outsidePaths", () => {
  it("finds absolute machine paths, the shared folder and relative paths above the root", () => {
    const sample = [
      `const SCRIPT = readFileSync("${WORK}/shared/redteam/rt/crash.sh", "utf8");`,
      `const SAMPLE = path.resolve(${OWN}, "../${SHARED}/data/mmb-sample");`,
      `const DATA = "${SHARED}/data/x.csv";`,
      `const UP = path.join(${OWN}, "..", "..", "elsewhere");`,
      `const HOME = "/${"home"}/alice/notes.txt";`,
      `const URL_UP = new URL("../../x.json", ${OWN_URL});`,
    ].join("\n");
    expect(outsidePaths("test/sample.test.ts", sample).map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("leaves container paths, the repository's own folders and plain strings alone", () => {
    const inside: [file: string, line: string][] = [
      ["test/a.test.ts", `expect(found).toEqual(["/home/agent/work/output/result.csv"]);`],
      [
        "test/a.test.ts",
        `await box.exec(["bash", "-c", "touch /tmp/c /home/agent/b; ls /root /etc/shadow"]);`,
      ],
      ["test/a.test.ts", `const FIXTURE = path.resolve(${OWN}, "fixtures/mmb-sample");`],
      ["test/support/cli.ts", `const BIN = path.resolve(${OWN}, "../../bin/kgate.js");`],
      ["src/agents/installed/image.ts", `const H = path.resolve(${OWN}, "../../../sandbox/harness");`],
      [
        "test/a.test.ts",
        `expect(await reasonOf(box.readFile("../../../etc/passwd"))).toBe("outside-workdir");`,
      ],
      ["test/a.test.ts", `const dockerfile = "WORKDIR /home/agent/work";`],
    ];
    for (const [file, line] of inside) expect(outsidePaths(file, line), line).toEqual([]);
    // The same lines from a folder one level higher climb above the root.
    expect(outsidePaths("test/cli.ts", inside[3]![1])).toHaveLength(1);
    expect(outsidePaths("src/agents/image.ts", inside[4]![1])).toHaveLength(1);
  });
});

describe("tracked files", () => {
  it("under src/, test/, bench/, scripts/ and .ci/ name no path outside the repository", () => {
    const files = execFileSync("git", ["ls-files", "-z", "--", ...FOLDERS], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
    // A checkout without git's index would make this test vacuous: there are hundreds of files.
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(path.join(ROOT, file));
      if (bytes.includes(0)) continue; // binary (the scanner's wasm, xlsx fixtures)
      for (const f of outsidePaths(file, bytes.toString("utf8"))) found.push(`${file}:${f.line}: ${f.text}`);
    }
    expect(found).toEqual([]);
  });
});
