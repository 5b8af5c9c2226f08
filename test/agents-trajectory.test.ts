// Trajectory facts and artefact delivery: when an agent counts as having opened the artefact, how a
// condition's artefact becomes a skill folder, and how trajectory files are read back.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openedFrom, placedArtefact, skillFile, skillName } from "../src/agents/artefact.ts";
import { readTrajectory, TrajectoryRecorder } from "../src/agents/trajectory.ts";
import type { TrajectoryEvent } from "../src/record/index.ts";
import { runContext, scaffoldedTask } from "./support/agent-context.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import { tempProject } from "./support/project.ts";

const at = "2026-01-01T00:00:00.000Z";
const call = (input: unknown): TrajectoryEvent => ({ at, type: "tool-call", name: "bash", input });
const result = (output: string): TrajectoryEvent => ({ at, type: "tool-result", output });

describe("artefactOpened", () => {
  const task = scaffoldedTask();
  const placed = placedArtefact(runContext(new DirSandbox(), { task, condition: "+A" }))!;

  it("is true when a tool call names the artefact's path or its skill folder", () => {
    expect(openedFrom([call({ command: `cat ${placed.path}` })], placed)).toBe(true);
    expect(
      openedFrom([call({ skill: "x" }), call({ file_path: "/w/.claude/skills/spec/SKILL.md" })], placed, [
        ".claude/skills/spec",
      ]),
    ).toBe(true);
  });

  it("is true when a tool result shows the canary or a distinctive line (grep, a skill loader)", () => {
    expect(openedFrom([result(`<!-- kgate-canary: ${placed.canary} -->`)], placed)).toBe(true);
    const line = placed.text.split("\n").find((l) => l.trim().length >= 40)!;
    expect(openedFrom([result(`match: ${line.trim()}`)], placed)).toBe(true);
  });

  it("is true when Claude Code's Skill tool loads the skill, or its content is injected after that", () => {
    const skill: TrajectoryEvent = {
      at,
      type: "tool-call",
      name: "Skill",
      input: { skill: "specification" },
    };
    expect(openedFrom([skill], placed, [".claude/skills/specification"])).toBe(true);
    expect(
      openedFrom([{ ...skill, input: { skill: "dataviz" } }], placed, [".claude/skills/specification"]),
    ).toBe(false);
    const injected: TrajectoryEvent = { at, type: "note", kind: "harness-context", text: placed.text };
    expect(openedFrom([injected], placed)).toBe(true);
    expect(openedFrom([{ ...injected, kind: "start" }], placed)).toBe(false);
  });

  it("is false when the agent never looked, and null under -A", () => {
    expect(openedFrom([call({ command: "ls" }), result("input.csv\ndocs")], placed)).toBe(false);
    expect(placedArtefact(runContext(new DirSandbox(), { task, condition: "-A" }))).toBeNull();
    expect(openedFrom([result(placed.text)], null)).toBeNull();
  });

  it("takes a variant's own text under variant:<name>", () => {
    const variant = placedArtefact(runContext(new DirSandbox(), { task, condition: "variant:perturbed" }))!;
    expect(variant.text).toContain("15%");
    expect(variant.text).not.toBe(placed.text);
  });
});

describe("skill folder", () => {
  it("names the skill from the artefact file and keeps the artefact verbatim under front matter", () => {
    expect(skillName("docs/internal/BOM Costing.md")).toBe("bom-costing");
    expect(skillName("docs/.md")).toBe("reference");
    const file = skillFile({
      path: "docs/costing.md",
      description: 'Costing "rules"\nfor BOMs',
      text: "# Body\n",
      canary: null,
    });
    expect(file).toBe('---\nname: costing\ndescription: "Costing \\"rules\\" for BOMs"\n---\n\n# Body\n');
  });
});

describe("trajectory files", () => {
  it("the recorder timestamps events and passes them on", () => {
    const next = new TrajectoryRecorder();
    const recorder = new TrajectoryRecorder(next, () => new Date(at));
    recorder.append({ type: "note", kind: "start" });
    expect(recorder.events).toEqual([{ at, type: "note", kind: "start" }]);
    expect(next.events).toHaveLength(1);
  });

  it("reads JSONL back, keeps the good events and names the file and line of each bad one", () => {
    const file = path.join(tempProject().root, "trajectory.jsonl");
    writeFileSync(file, `${JSON.stringify({ at, type: "note" })}\n\n{"at": 1}\n`);
    const bad = readTrajectory(file);
    expect(bad.events).toEqual([{ at, type: "note" }]);
    expect(bad.problems).toEqual([
      expect.stringMatching(/trajectory\.jsonl: line 3: not a trajectory event/),
    ]);
    // A torn last line (a process killed mid-write) is reported as such; the events before it stay.
    writeFileSync(file, `${JSON.stringify({ at, type: "model" })}\n{"at": "${at}", "ty`);
    const torn = readTrajectory(file);
    expect(torn.events).toHaveLength(1);
    expect(torn.problems).toEqual([expect.stringMatching(/line 2: invalid JSON \(an incomplete last line/)]);
  });
});
