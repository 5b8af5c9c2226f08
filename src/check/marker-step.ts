// The convention-marker check: the markers of the artefact and of each variant are well formed and
// each names a convention the verifier declares, once (a misspelt name would cut nothing in a probe;
// the compression probe refuses what this step fails: one parser, src/task/convention-markers.ts).
import path from "node:path";
import { relativeToProject } from "../project.ts";
import { conventionSections, markerProblemText } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

export const markerStep: CheckStep = {
  id: "markers",
  needs: ["task", "verifier"],
  async run(context) {
    const task = context.task!;
    const artefact = context.verifier!.verifier.conventions.artefact;
    const declared = typeof artefact === "object" && artefact !== null ? Object.keys(artefact as object) : [];
    const files = [
      { label: "artefact", file: task.artefact.absPath, bytes: task.artefact.bytes },
      ...task.variants.map((v) => ({ label: v.name, file: v.absPath, bytes: v.bytes })),
    ];
    const problems: string[] = [];
    const counts: string[] = [];
    for (const { label, file, bytes } of files) {
      const where = relativeToProject(context.paths, file);
      const { sections, problems: own } = conventionSections(bytes.toString("utf8"), declared);
      problems.push(...own.map((p) => `${where} ${markerProblemText(p)}`));
      counts.push(`${label} ${sections.length}`);
    }
    if (problems.length > 0) return [{ status: "fail", detail: problems.join("; ") }];
    const verifier = path.basename(context.verifier!.file);
    return [
      {
        status: "pass",
        detail: `convention sections (${counts.join(", ")}) each name a convention of ${verifier}`,
      },
    ];
  },
};
