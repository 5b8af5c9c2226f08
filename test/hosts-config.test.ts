// `sandbox.hosts` without a second daemon: the schema's errors name the file and the field, a pool
// whose hosts all fail to answer stops the run with each host's reason, and the placement order.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HostPoolProvider } from "../src/sandbox/docker/host-pool.ts";
import { kgate } from "./support/cli.ts";
import { demoTask } from "./support/sandbox.ts";

function withHosts(hosts: unknown) {
  const { paths } = demoTask();
  let config: Record<string, unknown> = {};
  try {
    config = JSON.parse(readFileSync(paths.config, "utf8"));
  } catch {
    config = {};
  }
  config.sandbox = { hosts };
  writeFileSync(paths.config, JSON.stringify(config, null, 2));
  return paths;
}

const runOracle = (root: string) => kgate(["--root", root, "run", "demo", "--agent", "oracle"]);

describe("sandbox.hosts in kgate.config.json", () => {
  it("a bad capacity names the file and the field", () => {
    const paths = withHosts([
      { name: "a", host: "unix:///var/run/docker.sock" },
      { name: "b", host: "unix:///var/run/docker.sock", capacity: 0 },
    ]);
    const r = runOracle(paths.root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${paths.config}: sandbox.hosts.1.capacity:`);
  });

  it("an endpoint of another scheme and a repeated name are refused", () => {
    const scheme = runOracle(withHosts([{ name: "a", host: "http://x:2375" }]).root);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/sandbox\.hosts\.0\.host: must start with unix:\/\/, tcp:\/\/ or ssh:\/\//);
    const twice = runOracle(
      withHosts([
        { name: "a", host: "unix:///var/run/docker.sock" },
        { name: "a", host: "unix:///var/run/docker.sock" },
      ]).root,
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("sandbox.hosts: host names must differ");
  });

  it("with every host down the run stops at once with each host's reason (exit 2)", () => {
    const paths = withHosts([
      { name: "a", host: "unix:///nonexistent/a.sock" },
      { name: "b", host: "unix:///nonexistent/b.sock" },
    ]);
    const r = runOracle(paths.root);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/every sandbox host is down \(a: .*ENOENT.*; b: .*ENOENT.*\)/);
  });
});

describe("placement in a pool", () => {
  it("puts each trial on the least loaded host with a free slot, and waits when all are full", async () => {
    // Nothing is created here: place() only reserves slots (no image source yet, so nothing loads).
    const pool = new HostPoolProvider([
      { name: "big", endpoint: { host: "unix:///nonexistent/big.sock" }, capacity: 2 },
      { name: "small", endpoint: { host: "unix:///nonexistent/small.sock" }, capacity: 1 },
    ]);
    // Loads (running/capacity): 0/2 vs 0/1, a tie: the first listed, big. Then 1/2 = 0.5 vs 0/1 = 0:
    // small. Then 0.5 vs 1/1 (full): big. Now 2/2 and 1/1: the fourth waits for a release.
    const first = await pool.place([]);
    const second = await pool.place([]);
    const third = await pool.place([]);
    expect([first, second, third].map((p) => p.provider.host)).toEqual(["big", "small", "big"]);
    let fourthHost = "";
    const fourth = pool.place([]).then((p) => {
      fourthHost = p.provider.host;
      return p;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(fourthHost).toBe("");
    second.release();
    second.release(); // a second release of the same slot frees nothing more
    expect((await fourth).provider.host).toBe("small");
    expect(pool.hosts.map((h) => h.running)).toEqual([2, 1]);
  });
});
