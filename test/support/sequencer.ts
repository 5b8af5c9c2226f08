// Test support (vitest sequence.sequencer): each project's files longest first, by the durations
// of test/durations.json (refresh: scripts/test-durations.mjs), files it does not list before all.
// vitest's own order takes durations from its cache of the last run on this machine and falls back
// on file size, so a fresh clone (CI) packed its two workers worse than a warm checkout (512 s
// against 469 s for the same suite); this order is the same on every machine.
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const DURATIONS = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "..", "durations.json"), "utf8"),
) as Record<string, number>;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) =>
      DURATIONS[path.relative(root, spec.moduleId).split(path.sep).join("/")] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const longer = seconds(b) - seconds(a);
      return Number.isNaN(longer) ? 0 : longer;
    });
  }
}
