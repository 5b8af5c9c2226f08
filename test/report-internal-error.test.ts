// kgate report and export rows --from keep kgate's own bug (a TypeError in summarising the run) as
// what it is, with its type and stack, and turn only a run that cannot be read into a usage error
// naming it (issue 41 item 4: internal errors keep their stack everywhere). The summariser is replaced
// here so that it throws on demand: no input of a user's reaches a TypeError in it.
import { describe, expect, it, vi } from "vitest";
import { openProject, report } from "../src/api/index.ts";
import { readCalibration } from "../src/commands/calibration-facts.ts";
import { usage } from "../src/commands/export-rows.ts";
import { UsageError } from "../src/errors.ts";
import { tempProject } from "./support/project.ts";

const thrown = vi.hoisted(() => ({ error: new Error("unset") as Error }));
vi.mock("../src/calibrate/index.ts", async (original) => ({
  ...(await original<typeof import("../src/calibrate/index.ts")>()),
  summariseRun: () => {
    throw thrown.error;
  },
}));

function bug(): TypeError {
  // a real TypeError with a stack from this file, as a programming error would give
  try {
    (undefined as unknown as { cells: unknown[] }).cells.length;
  } catch (err) {
    return err as TypeError;
  }
  throw new Error("unreachable");
}

describe("a bug while summarising a run", () => {
  it("kgate report's report() rethrows it with its type and stack", () => {
    const project = openProject(tempProject().root);
    thrown.error = bug();
    const err = (() => {
      try {
        report(project, "r1");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TypeError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).stack).toMatch(/report-internal-error\.test\.ts/);
  });

  it("export rows --from rethrows it; an unreadable run is still a usage error naming the run", () => {
    const paths = tempProject();
    thrown.error = bug();
    expect(() => readCalibration(paths, "r1")).toThrow(TypeError);
    thrown.error = new Error("no plan.json");
    expect(() => readCalibration(paths, "r1")).toThrow(UsageError);
    expect(() => readCalibration(paths, "r1")).toThrow("--from r1: no plan.json");
  });

  it("export rows' option readers rethrow a bug and turn a bad value into a usage error", () => {
    expect(() =>
      usage(() => {
        throw bug();
      }),
    ).toThrow(TypeError);
    expect(() =>
      usage(() => {
        throw new Error("--split 0.8,0.3: the parts must sum to 1");
      }),
    ).toThrow(UsageError);
  });
});
