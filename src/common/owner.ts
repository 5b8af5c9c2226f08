// Who owns a kgate resource: `<host>/<pid>/<process start time>`, and whether that process still
// lives (the start time tells a live owner from a dead one whose pid was reused).
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime), counted after the command name in parentheses.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

let ownerCache: string | undefined;

export function ownerLabel(): string {
  ownerCache ??= `${hostname()}/${process.pid}/${startTime(process.pid) ?? "0"}`;
  return ownerCache;
}

/** Whether the process named by an owner label is alive; owners on other hosts count as alive. */
export function ownerAlive(owner: string): boolean {
  const [host, pidText, start] = owner.split("/");
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const current = startTime(pid);
  if (current !== null) return start === "0" || current === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
