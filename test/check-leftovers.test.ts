// `kgate check` fails loudly on a curator's leftovers: TODO markers, a non-UTF-8 environment file,
// a symlink or dotfile in environment/, an artefact without a canary, a keyedArrays pointer that
// matches nothing. Each is a constructed bad task; the clean fixture passes.
import { appendFileSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { markupProject } from "./support/verify-fixture.ts";

interface CheckJson {
  tasks: Array<{ checks: Array<{ id: string; status: string; detail: string }> }>;
}

function check(root: string, id: string) {
  const result = kgate(["--root", root, "check", "--no-sandbox", "--json"]);
  const found = (JSON.parse(result.stdout) as CheckJson).tasks[0]!.checks.find((c) => c.id === id)!;
  return { code: result.code, ...found };
}

describe("the leftovers check", () => {
  it("passes the filled-in fixture, naming its canary", () => {
    const project = markupProject();
    const artefact = readFileSync(path.join(project.paths.artefacts, "markup", "artefact.md"), "utf8");
    const canary = /kgate-canary: ([0-9a-f-]{36})/.exec(artefact)![1]!;
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      code: 0,
      status: "pass",
      detail: `no TODO marker, no hidden or non-UTF-8 environment file, canary ${canary}`,
    });
  });

  it("names the file and line of each TODO marker left", () => {
    const project = markupProject();
    const verifier = path.join(project.paths.verifiers, "markup.ts");
    const lines = readFileSync(verifier, "utf8").split("\n").length; // the file ends with "\n"
    appendFileSync(verifier, "// TODO: check the rounding\n");
    const instruction = path.join(project.paths.tasks, "markup", "instruction.md");
    writeFileSync(instruction, `# TODO: task title\n${readFileSync(instruction, "utf8")}`);
    // The appended comment is on line `lines` (the old last, empty line); the title on line 1.
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      code: 1,
      status: "fail",
      detail: `2 TODO marker(s) left: tasks/markup/instruction.md:1, verifiers/markup.ts:${lines}`,
    });
  });

  it("fails an environment file that is not UTF-8", () => {
    const project = markupProject();
    // "Müller" in Latin-1: 0xFC alone is not valid UTF-8.
    writeFileSync(
      path.join(project.paths.tasks, "markup", "environment", "names.csv"),
      Buffer.from([0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72, 0x0a]),
    );
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail: "not UTF-8 text: tasks/markup/environment/names.csv",
    });
  });

  it("fails a dotfile and a symlink in environment/, which the sandbox would never see", () => {
    const project = markupProject();
    const environment = path.join(project.paths.tasks, "markup", "environment");
    writeFileSync(path.join(environment, ".rates.csv"), "rate\n0.12\n");
    symlinkSync("input.csv", path.join(environment, "linked.csv"));
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail:
        "never copied into the sandbox: tasks/markup/environment/.rates.csv (dotfile), tasks/markup/environment/linked.csv (symlink) (rename, or copy the target)",
    });
  });

  it("fails an artefact without any GUID, and accepts a canary written without the colon", () => {
    const project = markupProject();
    const file = path.join(project.paths.artefacts, "markup", "artefact.md");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/<!-- kgate-canary: [0-9a-f-]{36} -->\n/, ""));
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      status: "fail",
      detail: "artefacts/markup/artefact.md has no canary GUID (add <!-- kgate-canary: <guid> -->)",
    });
    const guid = "0b7c2e44-9a1d-4f3e-8c55-2d6f1a9e7b30";
    writeFileSync(
      file,
      `<!-- kgate-canary ${guid.toUpperCase()} -->\n${text.split("\n").slice(1).join("\n")}`,
    );
    expect(check(project.paths.root, "leftovers")).toMatchObject({
      status: "pass",
      detail: expect.stringMatching(new RegExp(`canary ${guid}$`)),
    });
  });
});

describe("keyedArrays pointers", () => {
  it("fails the contract check when a pointer matches no array of the artefact's answer", () => {
    const project = markupProject({
      spec: (spec) => {
        const outputs = spec.outputs as Array<Record<string, unknown>>;
        outputs[1]!.compare = { keyedArrays: { "/lines": ["item"], "/line": ["item"] } };
      },
    });
    expect(check(project.paths.root, "contract")).toMatchObject({
      code: 1,
      status: "fail",
      detail: `output/summary.json compare.keyedArrays "/line" matches no array of the artefact's answer`,
    });
  });
});
