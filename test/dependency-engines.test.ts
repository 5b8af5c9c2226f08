// Every locked dependency runs on the Node.js versions package.json's engines admit (Node 20 here).
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8"));

describe("dependency engines", () => {
  it("admit the oldest Node.js kgate supports", () => {
    const oldest = semver.minVersion(read("package.json").engines.node)!.version;
    const lock = read("package-lock.json") as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refused = Object.entries(lock.packages)
      .filter(([name, p]) => name !== "" && !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(oldest, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name}@${p.version} needs node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
