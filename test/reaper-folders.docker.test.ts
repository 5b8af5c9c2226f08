// Temp folders of killed kgate processes: a relay folder and a process's compiled verifiers carry
// their owner in their name; `kgate sandbox reap` (and every Docker command's first sweep) removes
// those whose owner is gone and keeps live ones.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OWNERLESS_MIN_AGE_MS, ownedTempDir, reapDeadFolders } from "../src/common/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const HOLDER = path.resolve(import.meta.dirname, "support/relay-holder.ts");
const VERIFIER_HOLDER = path.resolve(import.meta.dirname, "support/verifier-holder.ts");
const scratch: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A private temp directory, so the sweep sees only this test's folders. */
function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "reaper-folders-test-"));
  scratch.push(dir);
  return dir;
}

/**
 * Starts a process that holds an owned folder with TMPDIR=`tmp` (by default the real relay's socket
 * folder); resolves with it and the folder.
 */
function startHolder(tmp: string, holder = HOLDER): Promise<{ child: ChildProcess; folder: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", holder], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, TMPDIR: tmp },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`the relay holder exited with ${code}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve({ child, folder: out.trim() });
    });
  });
}

/** Sends `signal` (SIGKILL by default); resolves with the exit code once the process is gone. */
function ended(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> {
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill(signal);
  });
}

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

describe("the folder reaper", () => {
  it("removes the relay folder of a SIGKILLed process and keeps a live process's", async () => {
    const tmp = scratchDir();
    const [dead, live] = await Promise.all([startHolder(tmp), startHolder(tmp)]);
    for (const { child, folder } of [dead, live]) {
      expect(path.dirname(folder)).toBe(tmp);
      expect(path.basename(folder)).toMatch(new RegExp(`^kgate-relay-${child.pid}-\\d+-\\w{6}$`));
      expect(readdirSync(folder)).toEqual(["relay.sock"]);
    }
    await ended(dead.child);
    expect(existsSync(dead.folder)).toBe(true);

    const paths = tempProject();
    const reaped = kgate(["--root", paths.root, "sandbox", "reap", "--json"], { env: { TMPDIR: tmp } });
    expect(reaped.code, reaped.stderr).toBe(0);
    expect(JSON.parse(reaped.stdout).folders).toEqual([dead.folder]);
    expect(existsSync(dead.folder)).toBe(false);
    expect(existsSync(live.folder)).toBe(true);

    // The live relay still serves, and removes its own folder when it closes.
    expect(await ended(live.child, "SIGTERM")).toBe(0);
    expect(readdirSync(tmp).filter((name) => name.startsWith("kgate-"))).toEqual([]);
  }, 60_000);

  it("removes the compiled verifiers of a SIGKILLed process; one that exits removes its own", async () => {
    const tmp = scratchDir();
    const [dead, live] = await Promise.all([
      startHolder(tmp, VERIFIER_HOLDER),
      startHolder(tmp, VERIFIER_HOLDER),
    ]);
    for (const { child, folder } of [dead, live]) {
      expect(path.basename(folder)).toMatch(new RegExp(`^kgate-verifiers-${child.pid}-\\d+-\\w{6}$`));
      expect(readdirSync(folder)).toEqual(["bom-costing-0.mjs"]);
    }
    await ended(dead.child);
    expect(await reapDeadFolders({ dir: tmp })).toEqual([dead.folder]);
    expect(existsSync(live.folder)).toBe(true);
    expect(await ended(live.child, "SIGTERM")).toBe(0);
    expect(readdirSync(tmp).filter((name) => name.startsWith("kgate-"))).toEqual([]);
  }, 60_000);

  it("leaves folders without an owner alone while they are young or a socket in them answers", async () => {
    const tmp = scratchDir();
    const folder = (name: string, age: number) => {
      const dir = path.join(tmp, name);
      mkdirSync(dir);
      utimesSync(dir, hoursAgo(age), hoursAgo(age));
      return dir;
    };
    const young = folder("kgate-relay-Ab12Cd", 0.5);
    const old = folder("kgate-relay-Xy34Zw", 2);
    const oldRootfs = folder("kgate-rootfs-Qq56Rr", 2);
    const unknown = folder("kgate-cache-Mm78Nn", 2);
    const serving = folder("kgate-relay-Ss90Tt", 2);
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(serving, "relay.sock"), resolve));
    utimesSync(serving, hoursAgo(2), hoursAgo(2));
    const mine = ownedTempDir("relay", tmp);
    utimesSync(mine, hoursAgo(2), hoursAgo(2));
    try {
      expect((await reapDeadFolders({ dir: tmp })).sort()).toEqual([old, oldRootfs].sort());
      expect(readdirSync(tmp).sort()).toEqual(
        [young, unknown, serving, mine].map((d) => path.basename(d)).sort(),
      );
      // An hour on, the young one goes too; the served and the owned ones stay.
      expect(await reapDeadFolders({ dir: tmp, now: Date.now() + OWNERLESS_MIN_AGE_MS })).toEqual([young]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // With nothing answering on its socket, the old relay folder is a leftover.
    mkdirSync(path.join(serving, "x"));
    utimesSync(serving, hoursAgo(2), hoursAgo(2));
    expect(await reapDeadFolders({ dir: tmp })).toEqual([serving]);
  });
});
