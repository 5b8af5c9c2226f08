// The rubric's hole check (src/check/rubric-holes.ts) on a text deliverable: the memo written under
// each wrong convention must fail it, an idle criterion is named, and `kgate check`'s dead-rules
// step fails a text rubric with a hole (before, only judgesAlone csv/json rubrics were held to it).
import { describe, expect, it } from "vitest";
import { conventionWeights, rubricHoles } from "../src/check/index.ts";
import { loadVerifier } from "../src/verify/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { markupProject, markupVerifierSource } from "./support/verify-fixture.ts";

/** The markup task with output/memo.md as its only output; `criteria` replaces the memo's criteria. */
function memoProject(criteria?: string) {
  return markupProject({
    spec: (spec) => {
      spec.outputs = (spec.outputs as Array<{ path: string }>).filter((o) => o.path === "output/memo.md");
    },
    verifier: (imp) => {
      const source = markupVerifierSource(imp)
        .replace(/"output\/result\.csv": rows,\n/, "")
        .replace(/"output\/summary\.json": \{ total, lines: rows \},\n/, "");
      if (!criteria) return source;
      return source.replace(/criteria: \[[\s\S]*?\n {6}\],/, `criteria: [${criteria}],`);
    },
  });
}

const NAMES_ONLY =
  '{ name: "names every item", check: (text: string, e: { items: string[] }) => e.items.every((i) => text.includes(i)) }';

function checkOf(stdout: string, id: string) {
  const report = JSON.parse(stdout) as {
    tasks: Array<{ checks: Array<{ id: string; status: string; detail: string }> }>;
  };
  return report.tasks[0]!.checks.find((c) => c.id === id);
}

describe("rubricHoles on a text deliverable", () => {
  it("renders the memo under each wrong convention and records which criteria fail it", async () => {
    const task = memoProject().load();
    const holes = await rubricHoles(task, await loadVerifier(task));
    expect(holes.judged).toEqual(["output/memo.md"]);
    // The memo's answer is { total, items }: under the default (rate 0), rate alone at its default
    // (the same set here) and the perturbed 15%, the total changes (36.4 -> 32.5 or 37.375) and
    // the items do not: 1 changed value each; "states the total" fails each, "names every item" none.
    expect(holes.probes).toEqual([
      {
        label: "default",
        changedValues: 1,
        failed: true,
        failedCriteria: ["output/memo.md: states the total"],
      },
      {
        label: "default:rate",
        convention: "rate",
        changedValues: 1,
        failed: true,
        failedCriteria: ["output/memo.md: states the total"],
      },
      {
        label: "variant:perturbed",
        changedValues: 1,
        failed: true,
        failedCriteria: ["output/memo.md: states the total"],
      },
    ]);
    expect(holes.idle).toEqual(["output/memo.md: names every item"]);
  });

  it("takes a judge of its own (a model-graded rubric's), awaited", async () => {
    const task = memoProject().load();
    const seen: string[] = [];
    const holes = await rubricHoles(task, await loadVerifier(task), {
      judge: async (outputs) => {
        seen.push(outputs[0]!.bytes!.toString());
        return { status: "pass", reward: 1, score: 1, criteria: [], attribution: null };
      },
    });
    // 32.5 and 37.375 rendered with toFixed(2): 32.50, 32.50, 37.38.
    expect(seen).toEqual([
      "Items: bolt, nut, gear. Total 32.50.\n",
      "Items: bolt, nut, gear. Total 32.50.\n",
      "Items: bolt, nut, gear. Total 37.38.\n",
    ]);
    expect(holes.probes.every((p) => !p.failed)).toBe(true);
  });

  it("marks the convention of a text rubric that misses it (conventionWeights' rubricFails)", async () => {
    const task = memoProject(NAMES_ONLY).load();
    const weights = conventionWeights(task, await loadVerifier(task));
    expect(weights).toEqual([
      {
        name: "rate",
        read: true,
        loadBearing: true,
        changedValues: 1,
        sameAsDefault: false,
        rubricFails: false,
      },
    ]);
  });
});

describe("kgate check: the dead-rules step holds a text rubric to the hole check", () => {
  it("fails a memo rubric that lets the default-convention memo pass, naming the convention", async () => {
    const project = memoProject(NAMES_ONLY);
    const result = await kgateInProcess(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "dead-rules")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^the rubric passes the answer with "rate" set to the default: its criteria miss/,
      ),
    });
  });

  it("warns about an idle criterion, naming it, without failing", async () => {
    const project = memoProject();
    const result = await kgateInProcess(["--root", project.paths.root, "check", "--no-sandbox", "--json"]);
    expect(checkOf(result.stdout, "dead-rules")).toEqual({
      id: "dead-rules",
      status: "warning",
      detail:
        'each gated convention changes the answer when set to its default (values changed: rate 1); the rubric fails each deliverable written under a wrong convention (3); idle criteria, passed by every wrong deliverable: "output/memo.md: names every item" (they check nothing a convention changes)',
      durationMs: expect.any(Number),
    });
  });
});
