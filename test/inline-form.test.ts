// The inline form of a task: rendering (+A / -A byte checks, the instruction byte-identical, the
// environment size limit) and the parse of a reply's fenced blocks into output files, verified.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fenceFor, loadValidTask, parseInlineReply, renderInline, scaffoldTask } from "../src/task/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import { tempProject } from "./support/project.ts";

const ARTEFACT = "docs/internal/specification.md";
const OUTPUT = "output/result.csv";

function scaffolded() {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  return { paths, task: () => loadValidTask(paths, "demo") };
}

describe("renderInline", () => {
  it("carries the instruction byte for byte, the environment under both conditions, the artefact only under +A", () => {
    const { paths, task } = scaffolded();
    const loaded = task();
    const instruction = readFileSync(path.join(paths.tasks, "demo", "instruction.md"));
    const input = readFileSync(path.join(paths.tasks, "demo", "environment", "input.csv"), "utf8");
    const artefact = readFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "utf8");
    const plus = renderInline(loaded, "+A");
    const minus = renderInline(loaded, "-A");

    expect(Buffer.from(plus.instruction)).toEqual(instruction);
    expect(plus.text.startsWith(`${instruction.toString("utf8")}\n\n---\n\n`)).toBe(true);
    expect(minus.text.startsWith(`${instruction.toString("utf8")}\n\n---\n\n`)).toBe(true);
    expect(plus.system).toBe(minus.system);

    const inputBlock = `\`\`\`input.csv\n${input}\`\`\`\n`;
    const artefactBlock = `\`\`\`${ARTEFACT}\n${artefact}\`\`\`\n`;
    expect(minus.text).toContain(inputBlock);
    expect(minus.text).not.toContain(artefact.split("\n")[1]!);
    // +A is -A plus exactly the artefact's block (after the environment's, one blank line between).
    expect(plus.text.replace(`\n${artefactBlock}`, "")).toBe(minus.text);
    expect(plus.text.length - minus.text.length).toBe(artefactBlock.length + 1);
    expect(plus.files.map((f) => [f.path, f.artefact])).toEqual([
      ["input.csv", false],
      [ARTEFACT, true],
    ]);
    expect(plus.text).toContain(`\`\`\`${OUTPUT}\n<content of ${OUTPUT}>\n\`\`\``);
  });

  it("places a variant's bytes at the artefact's path", () => {
    const { paths, task } = scaffolded();
    const perturbed = readFileSync(path.join(paths.artefacts, "demo", "variants", "perturbed.md"), "utf8");
    const inline = renderInline(task(), "variant:perturbed");
    expect(inline.files.find((f) => f.artefact)).toEqual({ path: ARTEFACT, text: perturbed, artefact: true });
  });

  it("refuses an environment over the limit, naming the task, the sizes and the largest file", () => {
    const { paths, task } = scaffolded();
    const size = readFileSync(path.join(paths.tasks, "demo", "environment", "input.csv")).length;
    expect(() => renderInline(task(), "+A", { maxEnvironmentBytes: size - 1 })).toThrow(
      `task "demo": environment/ holds ${size} bytes, more than the inline form's limit of ${size - 1} (largest: environment/input.csv, ${size} bytes)`,
    );
    expect(renderInline(task(), "+A", { maxEnvironmentBytes: size }).files).toHaveLength(2);
  });

  it("refuses a file that is not UTF-8 text, naming it", () => {
    const { paths, task } = scaffolded();
    writeFileSync(path.join(paths.tasks, "demo", "environment", "blob.bin"), Buffer.from([0xff, 0xfe, 0x00]));
    expect(() => renderInline(task(), "-A")).toThrow(`task "demo": environment/blob.bin is not UTF-8 text`);
  });

  it("fences a file holding backticks with a longer fence", () => {
    expect(fenceFor("plain")).toBe("```");
    expect(fenceFor("a ```` b ` c")).toBe("`````");
  });
});

describe("parseInlineReply", () => {
  const reply = (body: string) => `Here you are.\n\n\`\`\`${OUTPUT}\n${body}\`\`\`\nDone.\n`;

  it("turns the labelled block into the output file, byte for byte, and it verifies", async () => {
    const { task } = scaffolded();
    const body = "item,value\nwidget,3.36\ngadget,5.60\n";
    const outputs = parseInlineReply(task(), `\`\`\`python\nprint(1)\n\`\`\`\n${reply(body)}`);
    expect(outputs).toEqual([{ path: OUTPUT, status: "collected", bytes: Buffer.from(body) }]);
    // input.csv holds widget 3 and gadget 5; the artefact's 12% markup: 3 * 1.12 = 3.36, 5 * 1.12 = 5.60.
    expect((await verifyTrial(task(), outputs)).status).toBe("pass");
  });

  it("calls the default-convention answer what it is", async () => {
    const { task } = scaffolded();
    // the default markup is 0%: 3.00 and 5.00.
    const verdict = await verifyTrial(
      task(),
      parseInlineReply(task(), reply("item,value\nwidget,3\ngadget,5\n")),
    );
    expect([verdict.status, verdict.attribution]).toEqual(["fail", "default-convention"]);
  });

  it.each([
    ["never closed", `\`\`\`${OUTPUT}\nitem,value\nwidget,3.36\n`, "rejected", "(line 1) is never closed"],
    ["given twice", reply("item,value\n") + reply("item,value\n"), "rejected", "has 2 blocks labelled"],
    ["absent", "I cannot do that.", "missing", "has no fenced block labelled"],
  ])("a block %s is a format failure", async (_what, text, status, reason) => {
    const { task } = scaffolded();
    const outputs = parseInlineReply(task(), text);
    expect(outputs[0]).toMatchObject({ path: OUTPUT, status });
    expect(outputs[0]!.reason).toContain(reason);
    const verdict = await verifyTrial(task(), outputs);
    expect([verdict.status, verdict.attribution]).toEqual(["fail", "format"]);
  });

  it("with a label prefix (an exam's task-k/), reads only the blocks labelled under it", () => {
    const { task } = scaffolded();
    const body = "item,value\nwidget,3.36\n";
    const text = `\`\`\`task-2/${OUTPUT}\n${body}\`\`\`\n${reply("item,value\n")}`;
    expect(parseInlineReply(task(), text, "task-2/")).toEqual([
      { path: OUTPUT, status: "collected", bytes: Buffer.from(body) },
    ]);
    const [other] = parseInlineReply(task(), text, "task-1/");
    expect(other).toMatchObject({ path: OUTPUT, status: "missing" });
    expect(other!.reason).toContain(`no fenced block labelled task-1/${OUTPUT}`);
  });

  it("rejects a block over the output's maxBytes", () => {
    const { task } = scaffolded();
    const loaded = task();
    const max = loaded.spec.outputs[0]!.maxBytes;
    const outputs = parseInlineReply(loaded, reply(`${"x".repeat(max)}\n`));
    expect(outputs[0]).toMatchObject({ status: "rejected" });
    expect(outputs[0]!.reason).toContain(`holds ${max + 1} bytes, over its maxBytes of ${max}`);
  });
});
