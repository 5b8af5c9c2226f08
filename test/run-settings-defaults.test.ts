// One default per run setting (issue 41 item 3): --concurrency and --retries take their defaults
// from RUN_SETTINGS only (a verb with a default of its own declares it there), every verb's help shows
// the default it runs with, and no module keeps a literal default of its own.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { CalibrationConfig } from "../src/calibrate/config.ts";
import { buildProgram } from "../src/cli.ts";
import { runSettingDefault } from "../src/common/index.ts";

const SRC = path.resolve(import.meta.dirname, "..", "src");

function help(...names: string[]): string {
  let command: Command = buildProgram(() => {});
  for (const name of names) command = command.commands.find((c) => c.name() === name)!;
  return command.helpInformation().replace(/\s+/g, " ");
}

describe("the run settings' defaults", () => {
  it("are 2 trials in flight and 1 retry, but kgate run's 1 in flight and a calibration's 2 retries", () => {
    // the table as RUN_SETTINGS declares it: concurrency 2 (run: 1), retries 1 (calibrate: 2)
    const table = (["run", "calibrate", "check", "probe", "exam", "triage"] as const).map((verb) => [
      verb,
      runSettingDefault("concurrency", verb),
      runSettingDefault("retries", verb),
    ]);
    expect(table).toEqual([
      ["run", 1, 1],
      ["calibrate", 2, 2],
      ["check", 2, 1],
      ["probe", 2, 1],
      ["exam", 2, 1],
      ["triage", 2, 1],
    ]);
  });

  it("are what each verb's help shows", () => {
    expect(help("run")).toMatch(/--concurrency <count> trials in flight at once \(default: 1\)/);
    expect(help("run")).toMatch(/--retries <count> extra attempts .* \(default: 1\)/);
    for (const verb of [["check"], ["exam"], ["triage"], ["probe", "recite"], ["probe", "canary"]])
      expect(help(...verb)).toMatch(/--concurrency <count> .* \(default: 2\)/);
    expect(help("calibrate")).toMatch(
      /--concurrency <count> trials in flight at once \(default calibration\.concurrency in kgate\.config\.json, else 2\)/,
    );
  });

  it("are what a calibration runs with when kgate.config.json leaves them out", () => {
    expect(CalibrationConfig.parse({})).toMatchObject({ concurrency: 2, infraRetries: 2 });
  });

  it("are written nowhere else: no `?? <n>`, `.default(<n>)` or `? <n> : <n>` for a run setting in src/", () => {
    const literal = [
      /\b(concurrency|retries|unitRetries|infraRetries)\s*\?\?\s*\d/,
      /settingOption\(.*\)\.default\(/,
      /_default\(RUN_SETTINGS\.\w+\.schema,\s*\d/,
      /\b(concurrency|retries|unitRetries|infraRetries):\s*[^,]*\?\s*\d+\s*:\s*\d/,
    ];
    const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const found = files.flatMap((file) =>
      readFileSync(path.join(SRC, file), "utf8")
        .split("\n")
        .flatMap((line, i) =>
          literal.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
