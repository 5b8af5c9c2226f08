// A Debian base image without any registry: debootstrap a minimal root filesystem and import it
// through the Engine API. Used when pulling debian:<suite>-slim fails (e.g. Docker Hub unreachable).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import tarFs from "tar-fs";
import { ownedTempDir } from "../../common/index.ts";
import { sha256 } from "../../task/index.ts";
import type { ProgressLine } from "./calls.ts";
import type { DockerClient } from "./client.ts";

export interface BootstrapRecipe {
  suite: string;
  variant: "minbase";
  mirror: string;
}

export const DEFAULT_RECIPE: BootstrapRecipe = {
  suite: "bookworm",
  variant: "minbase",
  mirror: process.env.KGATE_DEBIAN_MIRROR ?? "http://deb.debian.org/debian",
};

/** The tag of the bootstrapped base: keyed by what decides its packages (suite and variant). */
export function bootstrapTag(recipe: BootstrapRecipe): string {
  const key = sha256(JSON.stringify({ v: 2, suite: recipe.suite, variant: recipe.variant })).slice(0, 12);
  return `kgate-base:${recipe.suite}-${recipe.variant}-${key}`;
}

/**
 * Paths left out of the imported image: runtime mounts, package caches and lists, and (as in
 * Debian's slim images) documentation, manual pages and translations.
 */
const EXCLUDED = [
  /^(dev|proc|sys)\/./,
  /^var\/cache\/apt\/archives\/.+\.deb$/,
  /^var\/lib\/apt\/lists\/./,
  /^usr\/share\/(doc|man|info|locale)\/./,
];

/** debootstrap's per-package lines (hundreds of them): left out of the progress output. */
const PER_PACKAGE = /^I: ((Retrieving|Validating) \S+ \S+|(Extracting|Unpacking|Configuring) [^\s.]+\.\.\.)$/;

function runDebootstrap(recipe: BootstrapRecipe, dir: string, onLine: ProgressLine): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("debootstrap", [`--variant=${recipe.variant}`, recipe.suite, dir, recipe.mirror], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk
        .toString("utf8")
        .split("\n")
        .map((l) => l.trimEnd())) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (/^[EW]: /.test(line) || (/^I: /.test(line) && !PER_PACKAGE.test(line)))
          onLine(`debootstrap: ${line}`);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (err) =>
      reject(
        new Error(
          `cannot run debootstrap (${(err as Error).message}); install it with: apt-get install debootstrap`,
        ),
      ),
    );
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`debootstrap exited with ${code}; last output:\n${tail.join("\n")}`)),
    );
  });
}

/** Bootstraps the base once: a cached image with the same tag is reused as is. */
export async function ensureBootstrappedBase(
  docker: DockerClient,
  recipe: BootstrapRecipe,
  onLine: ProgressLine,
): Promise<string> {
  const tag = bootstrapTag(recipe);
  if (await docker.imageExists(tag)) {
    onLine(`using the bootstrapped base ${tag} (cached)`);
    return tag;
  }
  if (process.getuid?.() !== 0) {
    throw new Error(
      `bootstrapping a Debian base needs root (debootstrap); run \`kgate sandbox build\` once as root, or make debian:${recipe.suite}-slim available to the daemon (docker pull / docker load)`,
    );
  }
  const dir = ownedTempDir("rootfs");
  try {
    onLine(
      `bootstrapping a Debian ${recipe.suite} base with debootstrap from ${recipe.mirror} (about a minute)`,
    );
    await runDebootstrap(recipe, dir, onLine);
    onLine(`importing the root filesystem as ${tag}`);
    // umask 0 keeps modes such as /tmp's 1777 (tar-fs applies the process umask otherwise).
    const packOptions: tarFs.PackOptions & { umask: number } = {
      umask: 0,
      strict: false,
      ignore: (name) => EXCLUDED.some((re) => re.test(path.relative(dir, name))),
    };
    const tarball = tarFs.pack(dir, packOptions);
    await docker.importImage(tarball, tag, ["LABEL kgate=1", 'CMD ["bash"]'], onLine);
    return tag;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
