// `kgate export benchflow`: SkillsBench's layout (a Harbor task whose environment bakes skills into
// the agents' skill folders): with-skill carries the artefact as SKILL.md, without-skill nothing of
// it; checked for every library task, and bom-costing run through real Docker.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SKILL_HOMES } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { listFiles, listTaskIds, loadValidTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import {
  buildEnvironment,
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

/** The skill name kgate's installed harnesses use: the artefact's file name without extension. */
function skillNameOf(artefactPath: string): string {
  return path.posix.basename(artefactPath, ".md");
}

describe("kgate export benchflow (every library task)", () => {
  it("writes with-skill, without-skill and one with-skill folder per variant", () => {
    expect(exported.code).toBe(0);
    // Per task: with, without and one with-skill folder per variant (perturbed, compressed: 4 each).
    expect(readdirSync(out)).toHaveLength(tasks.reduce((n, t) => n + 2 + t.variants.length, 0));
    expect(readdirSync(out)).toContain("bom-costing-with-skill-variant-perturbed");
  });

  it.each(tasks.map((t) => [t.id, t] as const))(
    "%s: the skill is the artefact behind its description; none without",
    (_id, task) => {
      const withSkill = path.join(out, `${task.id}-with-skill`);
      const name = skillNameOf(task.spec.artefact.path);
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
      expect(readFileSync(path.join(without, "instruction.md")).equals(task.instruction)).toBe(true);
    },
  );
});

describe("bom-costing in BenchFlow's layout, in real Docker", () => {
  it("with-skill: the skill is where Claude Code looks, the oracle gets 1; without-skill: no canary, 0", () => {
    const task = tasks.find((t) => t.id === "bom-costing")!;
    const withSkill = path.join(out, "bom-costing-with-skill");
    const without = path.join(out, "bom-costing-without-skill");
    const base = sandboxImage();

    const skilled = startEnvironment(buildEnvironment(withSkill, base));
    const found = grepFileSystem(skilled, task.artefact.canary!).sort();
    // The artefact at its path in the work directory, and the skill in each agent's folder under both homes.
    const skillFiles = ["/root", "/home/agent"].flatMap((home) =>
      SKILL_HOMES.map((dir) => `${home}/${dir}/rollup-conventions/SKILL.md`),
    );
    expect(found).toEqual([`/home/agent/work/${task.spec.artefact.path}`, ...skillFiles].sort());
    expect(runOracle(skilled, withSkill).code).toBe(0);
    expect(runVerifier(skilled, withSkill).reward).toBe("1");

    const bare = startEnvironment(buildEnvironment(without, base));
    expect(grepFileSystem(bare, task.artefact.canary!)).toEqual([]);
    expect(exec(bare, "test ! -e /root/.claude/skills").code).toBe(0);
    expect(runOracle(bare, without).code).not.toBe(0);
    expect(runVerifier(bare, without).reward).toBe("0");
  }, 240_000);
});
