// `kgate check` fails loudly on a curator's leftovers: TODO markers, a non-UTF-8 environment file,
// a symlink or dotfile in environment/, an artefact without a canary, a keyedArrays pointer that
// matches nothing. Each is a constructed bad task; the clean fixture passes.
import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conventionSections, cutSection, markerProblemText } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { MARKUP_INPUT, markupProject } from "./support/verify-fixture.ts";

interface CheckJson {
  tasks: Array<{ checks: Array<{ id: string; status: string; detail: string }> }>;
}

/** `kgate check --no-sandbox --json` (in this process: the checks are the subject, not the bin). */
async function check(root: string, id: string) {
  const result = await kgateInProcess(["--root", root, "check", "--no-sandbox", "--json"]);
  const found = (JSON.parse(result.stdout) as CheckJson).tasks[0]!.checks.find((c) => c.id === id)!;
  return { code: result.code, ...found };
}

describe("the leftovers check", () => {
  it("passes the filled-in fixture, naming its canary", async () => {
    const project = markupProject();
    const artefact = readFileSync(path.join(project.paths.artefacts, "markup", "artefact.md"), "utf8");
    const canary = /kgate-canary: ([0-9a-f-]{36})/.exec(artefact)![1]!;
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      code: 0,
      status: "pass",
      detail: `no TODO marker, no hidden or non-UTF-8 environment file, canary ${canary}`,
    });
  });

  it("names the file and line of each TODO marker left", async () => {
    const project = markupProject();
    const verifier = path.join(project.paths.verifiers, "markup.ts");
    const lines = readFileSync(verifier, "utf8").split("\n").length; // the file ends with "\n"
    appendFileSync(verifier, "// TODO: check the rounding\n");
    const instruction = path.join(project.paths.tasks, "markup", "instruction.md");
    writeFileSync(instruction, `# TODO: task title\n${readFileSync(instruction, "utf8")}`);
    // The appended comment is on line `lines` (the old last, empty line); the title on line 1.
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      code: 1,
      status: "fail",
      detail: `2 TODO marker(s) left: tasks/markup/instruction.md:1, verifiers/markup.ts:${lines}`,
    });
  });

  it("fails an environment file that is not UTF-8", async () => {
    const project = markupProject();
    // "Müller" in Latin-1: 0xFC alone is not valid UTF-8.
    writeFileSync(
      path.join(project.paths.tasks, "markup", "environment", "names.csv"),
      Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x0a]),
    );
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail: "not UTF-8 text: tasks/markup/environment/names.csv",
    });
  });

  it("fails a dotfile in environment/, which the sandbox would never see", async () => {
    const project = markupProject();
    const environment = path.join(project.paths.tasks, "markup", "environment");
    writeFileSync(path.join(environment, ".rates.csv"), "rate\n0.12\n");
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail:
        "never copied into the sandbox: tasks/markup/environment/.rates.csv (dotfile) (rename, or copy the target)",
    });
  });

  it("a symlink in environment/ is refused when the task loads, naming it (never followed)", async () => {
    const project = markupProject();
    const environment = path.join(project.paths.tasks, "markup", "environment");
    symlinkSync("input.csv", path.join(environment, "linked.csv"));
    const result = await kgateInProcess(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("environment/linked.csv");
    expect(await check(project.paths.root, "leftovers")).toMatchObject({ status: "skipped" });
  });

  it("fails an artefact without any GUID, and accepts a canary written without the colon", async () => {
    const project = markupProject();
    const file = path.join(project.paths.artefacts, "markup", "artefact.md");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/<!-- kgate-canary: [0-9a-f-]{36} -->\n/, ""));
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail: "artefacts/markup/artefact.md has no canary GUID (add <!-- kgate-canary: <guid> -->)",
    });
    const guid = "0b7c2e44-9a1d-4f3e-8c55-2d6f1a9e7b30";
    writeFileSync(
      file,
      `<!-- kgate-canary ${guid.toUpperCase()} -->\n${text.split("\n").slice(1).join("\n")}`,
    );
    expect(await check(project.paths.root, "leftovers")).toMatchObject({
      status: "pass",
      detail: expect.stringMatching(new RegExp(`canary ${guid}$`)),
    });
  });
});

describe("keyedArrays pointers", () => {
  it("fails the contract check when a pointer matches no array of the artefact's answer", async () => {
    const project = markupProject({
      spec: (spec) => {
        const outputs = spec.outputs as Array<Record<string, unknown>>;
        outputs[1]!.compare = { keyedArrays: { "/lines": ["item"], "/line": ["item"] } };
      },
    });
    expect(await check(project.paths.root, "contract")).toMatchObject({
      code: 1,
      status: "fail",
      detail: `output/summary.json compare.keyedArrays "/line" matches no array of the artefact's answer`,
    });
  });
});

describe("convention markers", () => {
  it("reads sections, and reports nested, unclosed and malformed markers with their lines", async () => {
    const text = [
      "<!-- kgate:convention rate -->", // 1
      "- rate 12%", // 2
      "<!-- /kgate:convention -->", // 3
      "<!-- kgate:convention a -->", // 4
      "<!-- kgate:convention b -->", // 5: starts inside a
      "<!-- kgate:convention -->", // 6: no name
      "<!-- /kgate:convention -->", // 7: closes b
      "<!-- /kgate:convention -->", // 8: nothing open
      "<!-- kgate:convention c -->", // 9: never closed
    ].join("\n");
    expect(conventionSections(text)).toEqual({
      sections: [
        { name: "rate", startLine: 1, endLine: 3, body: "- rate 12%" },
        {
          name: "b",
          startLine: 5,
          endLine: 7,
          body: "<!-- kgate:convention -->",
        },
      ],
      problems: [
        { line: 5, message: 'section "b" starts inside "a" (line 4)' },
        {
          line: 6,
          message: "not a marker (expected <!-- kgate:convention NAME --> or <!-- /kgate:convention -->)",
        },
        { line: 8, message: "an end marker without a section" },
        { line: 9, message: 'section "c" is never closed' },
      ],
    });
  });

  it("with the declared conventions, also reports a section naming none of them, and one marked twice", () => {
    const text = [
      "<!-- kgate:convention rate -->", // 1
      "<!-- /kgate:convention -->", // 2
      "<!-- kgate:convention rates -->", // 3: not declared
      "<!-- /kgate:convention -->", // 4
      "<!-- kgate:convention rate -->", // 5: marked twice
      "<!-- /kgate:convention -->", // 6
      "<!-- kgate:convention a/b -->", // 7: not a name (letters, digits, _ . - only)
    ].join("\n");
    const { sections, problems } = conventionSections(text, ["rate", "bonus"]);
    expect(sections.map((s) => [s.name, s.startLine])).toEqual([
      ["rate", 1],
      ["rates", 3],
      ["rate", 5],
    ]);
    expect(problems.map(markerProblemText)).toEqual([
      "line 7: not a marker (expected <!-- kgate:convention NAME --> or <!-- /kgate:convention -->)",
      'line 3: "rates" is not a declared convention (declared: rate, bonus)',
      'line 5: section "rate" is marked twice',
    ]);
  });

  it("cuts one section with its markers", () => {
    const text = [
      "intro",
      "<!-- kgate:convention rate -->",
      "- rate 12%",
      "<!-- /kgate:convention -->",
      "end",
    ].join("\n");
    const [section] = conventionSections(text).sections;
    expect(cutSection(text, section!)).toBe("intro\nend");
  });

  it("fails a marker that names no declared convention, naming file and line", async () => {
    const project = markupProject();
    const file = path.join(project.paths.artefacts, "markup", "artefact.md");
    const lines = readFileSync(file, "utf8").split("\n");
    const at = lines.indexOf("<!-- kgate:convention rate -->");
    expect(at).toBeGreaterThan(0);
    lines[at] = "<!-- kgate:convention rates -->";
    writeFileSync(file, lines.join("\n"));
    expect(await check(project.paths.root, "markers")).toMatchObject({
      code: 1,
      status: "fail",
      detail: `artefacts/markup/artefact.md line ${at + 1}: "rates" is not a declared convention (declared: rate)`,
    });
  });
});

describe("the data generator", () => {
  it("passes when rerunning it reproduces environment/", async () => {
    const project = markupProject();
    expect(await check(project.paths.root, "generator")).toMatchObject({
      status: "pass",
      detail: "tasks/markup/generate.py reproduces environment/ byte for byte (1 file(s))",
    });
  });

  it("runs a generate.mjs with node, like generate.py", async () => {
    const project = markupProject();
    const taskDir = path.join(project.paths.tasks, "markup");
    rmSync(path.join(taskDir, "generate.py"));
    writeFileSync(
      path.join(taskDir, "generate.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(process.argv[2] + "/input.csv", ${JSON.stringify(MARKUP_INPUT)});\n`,
    );
    expect(await check(project.paths.root, "generator")).toMatchObject({
      status: "pass",
      detail: "tasks/markup/generate.mjs reproduces environment/ byte for byte (1 file(s))",
    });
  });

  it("fails when environment/ was edited by hand, or the generator fails", async () => {
    const project = markupProject();
    const environment = path.join(project.paths.tasks, "markup", "environment");
    appendFileSync(path.join(environment, "input.csv"), "washer,100,0.05\n");
    writeFileSync(path.join(environment, "extra.csv"), "a\n1\n");
    expect(await check(project.paths.root, "generator")).toMatchObject({
      status: "fail",
      detail:
        "tasks/markup/generate.py does not reproduce environment/: extra.csv is not generated; input.csv differs",
    });
    writeFileSync(
      path.join(project.paths.tasks, "markup", "generate.py"),
      "import sys\nsys.exit('no seed')\n",
    );
    expect(await check(project.paths.root, "generator")).toMatchObject({
      status: "fail",
      detail: "tasks/markup/generate.py failed: no seed",
    });
  });
});
