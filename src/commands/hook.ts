// `kgate hook install|uninstall`: a git pre-commit hook running `kgate audit --staged`. It goes where
// git will run it: husky's .husky/pre-commit, a core.hooksPath folder, or .git/hooks; an existing
// hook is kept and the kgate block is added to it (and removed again by uninstall).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../errors.ts";
import { packageInfo } from "../package-info.ts";
import type { CommandContext } from "./context.ts";

export const BEGIN = "# >>> kgate leak audit (written by `kgate hook install`) >>>";
export const END = "# <<< kgate leak audit <<<";

function git(cwd: string, args: string[]): string | undefined {
  const result = spawnSync("git", args, { cwd, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** The pre-commit file git will run for the repository holding `root`. */
export function hookFile(root: string): { repo: string; file: string; via: string } {
  const repo = git(root, ["rev-parse", "--show-toplevel"]);
  if (!repo) throw new UsageError(`${root} is not inside a git repository`);
  const hooksPath = git(root, ["config", "core.hooksPath"]);
  if (hooksPath) {
    const abs = path.resolve(repo, hooksPath);
    // husky 9 points core.hooksPath at .husky/_ and runs the user's scripts in .husky/.
    if (path.basename(abs) === "_" && path.basename(path.dirname(abs)) === ".husky") {
      return { repo, file: path.join(path.dirname(abs), "pre-commit"), via: "husky" };
    }
    return { repo, file: path.join(abs, "pre-commit"), via: "core.hooksPath" };
  }
  const hooks = git(root, ["rev-parse", "--git-path", "hooks"]) ?? ".git/hooks";
  return { repo, file: path.join(path.resolve(root, hooks), "pre-commit"), via: "git hooks folder" };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

function block(repo: string, root: string): string {
  const bin = packageInfo().bin;
  const inRepo = (p: string) => !path.relative(repo, p).startsWith("..");
  const binArg = inRepo(bin) ? path.relative(repo, bin).split(path.sep).join("/") : bin;
  const rootArg = path.relative(repo, root).split(path.sep).join("/") || ".";
  return `${BEGIN}\nnode ${shellQuote(binArg)} --root ${shellQuote(rootArg)} audit --staged || exit $?\n${END}\n`;
}

function withoutBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  if (start < 0) return text;
  const end = text.indexOf(END, start);
  return text.slice(0, start) + (end < 0 ? "" : text.slice(end + END.length).replace(/^\n/, ""));
}

function install(existing: string | undefined, kgate: string): string {
  if (existing === undefined) return `#!/bin/sh\n${kgate}`;
  const base = withoutBlock(existing);
  const lines = base.replace(/\n*$/, "\n").split("\n");
  // Insert before a final unconditional `exit`, which would otherwise skip the audit.
  let at = lines.length - 1;
  while (at > 0 && lines[at - 1]!.trim() === "") at--;
  if (at > 0 && /^exit\b/.test(lines[at - 1]!.trim())) at--;
  return [...lines.slice(0, at), ...kgate.trimEnd().split("\n"), ...lines.slice(at)]
    .join("\n")
    .replace(/\n*$/, "\n");
}

export async function run(ctx: CommandContext, action: "install" | "uninstall"): Promise<number> {
  const { repo, file, via } = hookFile(ctx.paths.root);
  const existing = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const rel = path.relative(repo, file).split(path.sep).join("/");
  if (action === "install") {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, install(existing, block(repo, ctx.paths.root)));
    chmodSync(file, 0o755);
    const how =
      existing === undefined ? "wrote" : existing.includes(BEGIN) ? "updated" : "added the audit to";
    ctx.stdout.write(`${how} ${rel} (${via}): commits run \`kgate audit --staged\`\n`);
    return 0;
  }
  if (existing === undefined || !existing.includes(BEGIN)) {
    ctx.stdout.write(`no kgate hook in ${rel}; nothing to do\n`);
    return 0;
  }
  const rest = withoutBlock(existing);
  if (rest.replace(/^#!.*\n?/, "").trim() === "") rmSync(file);
  else writeFileSync(file, rest);
  ctx.stdout.write(`removed the kgate audit from ${rel}\n`);
  return 0;
}
