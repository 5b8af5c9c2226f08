// `kgate export benchflow`: BenchFlow's native task package (task.md, environment/, oracle/,
// verifier/ with verifier.md and rubrics/), whose environment bakes the artefact as a skill into the
// agents' skill folders: with-skill carries it as SKILL.md, without-skill nothing of it; checked for
// every library task, task.md read with a YAML parser as BenchFlow reads it, and bom-costing run
// through real Docker as BenchFlow runs the native layout (/oracle, /verifier). `--split` writes
// Harbor's split layout with the skill instead.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SKILL_HOMES } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { listFiles, listTaskIds, loadValidTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import {
  buildEnvironment,
  documentedVariablesOracle,
  exec,
  grepFileSystem,
  runOracle,
  runVerifier,
  startEnvironment,
} from "./support/harbor-run.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const tasks = listTaskIds(repo).map((id) => loadValidTask(repo, id));
const out = tempProject("file").root;
const exported = kgate(["--root", repo.root, "export", "benchflow", "--out", out], { timeoutMs: 300_000 });

/** The exported skill's name: the task id, then the artefact's file name without extension. */
function skillNameOf(task: { id: string; spec: { artefact: { path: string } } }): string {
  return `${task.id}-${path.posix.basename(task.spec.artefact.path, ".md")}`;
}

/** task.md's front matter and body, the front matter read by PyYAML (a YAML parser BenchFlow uses). */
function taskMd(file: string): { front: Record<string, Record<string, unknown>>; body: string } {
  const text = readFileSync(file, "utf8");
  const [, front, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)!;
  const script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))";
  return {
    front: JSON.parse(execFileSync("python3", ["-c", script], { input: front, encoding: "utf8" })),
    body: body!,
  };
}

describe("kgate export benchflow (every library task)", () => {
  it("writes with-skill, without-skill and one with-skill folder per variant", () => {
    expect(exported.code).toBe(0);
    // Per task: with, without and one with-skill folder per variant (perturbed, compressed: 4 each).
    // Beside the folders, the manifest (manifest.jsonl and manifest.parquet).
    const folders = readdirSync(out).filter((f) => !f.startsWith("manifest."));
    expect(readdirSync(out).length - folders.length).toBe(2);
    expect(folders).toHaveLength(tasks.reduce((n, t) => n + 2 + t.variants.length, 0));
    expect(folders).toContain("bom-costing-with-skill-variant-perturbed");
  });

  it.each(tasks.map((t) => [t.id, t] as const))(
    "%s: BenchFlow's native layout; the skill is the artefact behind its description; none without",
    (_id, task) => {
      const withSkill = path.join(out, `${task.id}-with-skill`);
      // The native package: no split-layout alias beside it (BenchFlow's publication grade refuses them).
      for (const file of ["task.md", "environment/Dockerfile", "oracle/solve.sh", "verifier/test.sh"]) {
        expect(existsSync(path.join(withSkill, file)), file).toBe(true);
      }
      for (const file of ["verifier/verifier.md", "verifier/rubrics/verifier.md"]) {
        expect(existsSync(path.join(withSkill, file)), file).toBe(true);
      }
      for (const alias of ["task.toml", "instruction.md", "solution", "tests"]) {
        expect(existsSync(path.join(withSkill, alias)), alias).toBe(false);
      }
      const { front, body } = taskMd(path.join(withSkill, "task.md"));
      expect(front.schema_version).toBe("1.3");
      expect(front.agent).toEqual({ timeout_sec: task.spec.limits.timeoutSec });
      expect(front.sandbox).toMatchObject({ network_mode: "no-network", allow_internet: false });
      expect(front.metadata).toMatchObject({
        kgate_task: task.id,
        kgate_condition: "+A",
        kgate_layout: "benchflow",
      });
      // The prompt: the instruction in task.md's ## prompt section, as BenchFlow reads it (stripped).
      expect(body.startsWith("\n## prompt\n\n")).toBe(true);
      expect(body.slice("\n## prompt\n\n".length)).toBe(task.instruction.toString("utf8"));

      const name = skillNameOf(task);
      const skill = readFileSync(path.join(withSkill, "environment/skills", name, "SKILL.md"), "utf8");
      const description = JSON.stringify(task.spec.artefact.description);
      expect(skill).toBe(
        `---\nname: ${name}\ndescription: ${description}\n---\n\n${task.artefact.bytes.toString("utf8")}`,
      );
      const dockerfile = readFileSync(path.join(withSkill, "environment/Dockerfile"), "utf8");
      for (const home of SKILL_HOMES) expect(dockerfile).toContain(`COPY skills/ /root/${home}/`);

      const perturbed = readFileSync(
        path.join(out, `${task.id}-with-skill-variant-perturbed`, "environment/skills", name, "SKILL.md"),
        "utf8",
      );
      expect(
        perturbed.endsWith(task.variants.find((v) => v.name === "perturbed")!.bytes.toString("utf8")),
      ).toBe(true);

      const without = path.join(out, `${task.id}-without-skill`);
      expect(listFiles(path.join(without, "environment")).some((f) => f.startsWith("skills/"))).toBe(false);
      expect(readFileSync(path.join(without, "environment/Dockerfile"), "utf8")).not.toContain("skills");
      for (const file of listFiles(without)) {
        expect(readFileSync(path.join(without, file)).includes(task.artefact.canary!), file).toBe(false);
      }
    },
  );

  it("--split writes Harbor's split layout with the skill", () => {
    const split = tempProject().root;
    const result = kgate([
      "--root",
      repo.root,
      "export",
      "benchflow",
      "bom-costing",
      "--condition",
      "+A",
      "--split",
      "--out",
      split,
    ]);
    expect(result.code).toBe(0);
    const folder = path.join(split, "bom-costing-with-skill");
    expect(
      listFiles(folder)
        .filter((f) => !f.includes("/"))
        .sort(),
    ).toEqual(["instruction.md", "task.toml"]);
    for (const file of [
      "solution/solve.sh",
      "tests/test.sh",
      "environment/skills/bom-costing-rollup-conventions/SKILL.md",
    ]) {
      expect(existsSync(path.join(folder, file)), file).toBe(true);
    }
    expect(readFileSync(path.join(folder, "task.toml"), "utf8")).toContain(
      'kgate_layout = "benchflow-split"',
    );
  });
});

describe("bom-costing in BenchFlow's native layout, in real Docker", () => {
  it("with-skill: the skill is where Claude Code looks, an oracle reading only the documented variables gets 1; without-skill: no canary, 0", () => {
    const task = tasks.find((t) => t.id === "bom-costing")!;
    const withSkill = path.join(out, "bom-costing-with-skill");
    const without = path.join(out, "bom-costing-without-skill");
    const base = sandboxImage();

    const skilled = startEnvironment(buildEnvironment(withSkill, base));
    const found = grepFileSystem(skilled, task.artefact.canary!).sort();
    // The artefact at its path in the work directory, and the skill in each agent's folder under both homes.
    const skillFiles = ["/root", "/home/agent"].flatMap((home) =>
      SKILL_HOMES.map((dir) => `${home}/${dir}/bom-costing-rollup-conventions/SKILL.md`),
    );
    expect(found).toEqual([`/home/agent/work/${task.spec.artefact.path}`, ...skillFiles].sort());
    // BenchFlow uploads oracle/ to /oracle and verifier/ to /verifier; the oracle finds the
    // specification through $KGATE_ARTEFACT_PATH alone (the export must set it).
    const oracle = runOracle(skilled, documentedVariablesOracle(withSkill, "oracle"), "oracle");
    expect(oracle.code, exec(skilled, "cat /logs/agent/oracle.txt").stdout).toBe(0);
    const verdict = runVerifier(skilled, withSkill, "verifier");
    expect([verdict.reward, verdict.rewardJson]).toEqual(["1", '{"reward":1}']);

    const bare = startEnvironment(buildEnvironment(without, base));
    expect(grepFileSystem(bare, task.artefact.canary!)).toEqual([]);
    expect(exec(bare, "test ! -e /root/.claude/skills").code).toBe(0);
    expect(runOracle(bare, without, "oracle").code).not.toBe(0);
    expect(runVerifier(bare, without, "verifier").reward).toBe("0");
  }, 240_000);
});
