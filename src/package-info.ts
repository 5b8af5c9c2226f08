// The kgate package itself: its folder (holding bin/kgate.js) and version, found from this module.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface PackageInfo {
  root: string;
  version: string;
  bin: string;
}

let cached: PackageInfo | undefined;

/** Walks up from this module (src/ or a bundle in dist/) to kgate's package.json. */
export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "kgate") {
        cached = { root: dir, version: pkg.version ?? "0.0.0", bin: path.join(dir, "bin", "kgate.js") };
        return cached;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find kgate's package.json above its sources");
    dir = parent;
  }
}

/** kgate's version, for provenance. */
export function kgateVersion(): string {
  return packageInfo().version;
}

/** A file or folder shipped in kgate's package (sandbox/, src/view/assets/), from src/ and dist/ alike. */
export function packagePath(...parts: string[]): string {
  return path.join(packageInfo().root, ...parts);
}
