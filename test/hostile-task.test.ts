// Task input mistakes are loud (red-team item 12): NUL/control characters in task paths, a symlinked
// environment/ or entry (never followed), an oversized environment file, and a task that cannot be
// read at all: each is an error naming the file, and `kgate list` still lists every other task.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

interface ListJson {
  tasks: Array<{ id: string; valid: boolean; problems: Array<{ text: string }> }>;
}

describe("kgate list on broken task input", () => {
  it("names each broken task's file and field, and still lists the good one", () => {
    const paths = tempProject();
    for (const id of ["good", "nul", "envroot", "envlink", "bigfile", "unreadable"]) {
      scaffoldTask(paths, { id, gate: "convention" });
    }
    const taskDir = (id: string) => path.join(paths.tasks, id);
    const editSpec = (id: string, edit: (spec: Record<string, unknown>) => void) => {
      const file = path.join(taskDir(id), "task.json");
      const spec = JSON.parse(readFileSync(file, "utf8"));
      edit(spec);
      writeFileSync(file, JSON.stringify(spec));
    };
    // The red team's bad-nul: a NUL inside the artefact path.
    editSpec("nul", (spec) => {
      (spec.artefact as { path: string }).path = "docs/spec\u0000evil.md";
    });
    // environment/ itself a link to the host's /etc, and an entry linking to /etc/passwd.
    rmSync(path.join(taskDir("envroot"), "environment"), { recursive: true });
    symlinkSync("/etc", path.join(taskDir("envroot"), "environment"));
    symlinkSync("/etc/passwd", path.join(taskDir("envlink"), "environment", "passwd"));
    // 2 MiB file against a 1 MiB cap.
    editSpec("bigfile", (spec) => {
      spec.limits = { environmentFileMb: 1 };
    });
    writeFileSync(path.join(taskDir("bigfile"), "environment", "huge.bin"), Buffer.alloc(2 * 1024 * 1024));
    // task.json that is a folder: reading it throws.
    rmSync(path.join(taskDir("unreadable"), "task.json"));
    mkdirSync(path.join(taskDir("unreadable"), "task.json"));

    const result = kgate(["--root", paths.root, "list", "--json"]);
    expect(result.code).toBe(1);
    const list = JSON.parse(result.stdout) as ListJson;
    const byId = Object.fromEntries(list.tasks.map((t) => [t.id, t]));
    expect(Object.keys(byId).sort()).toEqual(["bigfile", "envlink", "envroot", "good", "nul", "unreadable"]);
    expect(byId.good!.valid).toBe(true);
    const text = (id: string) => byId[id]!.problems.map((p) => p.text).join("\n");
    expect(byId.nul!.valid).toBe(false);
    expect(text("nul")).toContain("tasks/nul/task.json: artefact.path:");
    expect(text("nul")).toContain("no NUL or control character");
    expect(text("envroot")).toContain("tasks/envroot/environment: the environment folder is a symbolic link");
    expect(text("envlink")).toContain("tasks/envlink/environment/passwd: is a symbolic link");
    expect(text("bigfile")).toContain(
      "tasks/bigfile/environment/huge.bin: is 2097152 bytes, over the cap of 1 MiB",
    );
    expect(text("unreadable")).toContain("tasks/unreadable");
    expect(text("unreadable")).toContain("could not be read");
  });
});
