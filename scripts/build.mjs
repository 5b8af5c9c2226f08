// Builds dist/: the CLI and the library's entries (the package exports "kgate" and "kgate/verify") as
// one esbuild bundle, so `kgate` starts without compiling TypeScript on every run (bin/kgate.js uses
// it while it is newer than every file in src/) and a project imports kgate from plain Node. The
// library's declarations (dist/types/, tsc -p tsconfig.build.json) are `npm run build`'s second step
// and are kept here. Runs on `npm ci` through the `prepare` script; when esbuild is not installed it
// says so and leaves bin/kgate.js on tsx.
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, "dist");

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  process.stderr.write(
    "kgate build: esbuild is not installed; `kgate` will run from the sources through tsx\n",
  );
  process.exit(0);
}

// Small, always-needed packages are bundled (one file parses faster than many); everything else
// stays external and is loaded from node_modules when a command needs it.
const BUNDLED = new Set(["commander", "picocolors", "zod"]);
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
// Development packages stay external too: src/export/ loads esbuild (optional for users) when it runs.
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})].filter(
  (name) => !BUNDLED.has(name),
);

// zod bundles every locale of its error messages (some 400 KB the CLI would parse on each start);
// kgate reports in English, so z.locales holds English only.
const englishOnlyZodLocales = {
  name: "english-only-zod-locales",
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: path.join(path.dirname(args.importer), "..", "locales", "en.js") }
        : undefined,
    );
  },
};

// The bundle serves every verb (bin/kgate.js falls back to the sources while it is stale).
// The audit's schemas use zod/mini, bundled and tree-shaken; classic zod (the task loader's schemas,
// which the audit does not load) stays in node_modules, so the audit's chunks do not carry it.
const classicZodExternal = {
  name: "classic-zod-external",
  setup(build) {
    build.onResolve({ filter: /^zod$/ }, () => ({ path: "zod", external: true }));
  },
};

// Everything but the declarations, which tsc writes after this script.
const built = existsSync(outdir) ? readdirSync(outdir, { withFileTypes: true }) : [];
for (const entry of built.filter((e) => e.name !== "types")) {
  rmSync(path.join(outdir, entry.name), { recursive: true, force: true });
}
await esbuild.build({
  absWorkingDir: root,
  // The workers are entries of their own: parallel.ts starts dist/scan-worker.js and killable.ts
  // dist/verify-worker.js next to the chunks.
  entryPoints: {
    cli: "src/cli.ts",
    index: "src/api/index.ts",
    verify: "src/verify/index.ts",
    "scan-worker": "src/audit/scan-worker.ts",
    "verify-worker": "src/verify/worker-entry.ts",
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // Bundled CommonJS code calls require(); give the ES module one.
  banner: {
    js: "import { createRequire as __kgateRequire } from 'node:module'; const require = __kgateRequire(import.meta.url);",
  },
  plugins: [englishOnlyZodLocales, classicZodExternal],
  logLevel: "warning",
});
// The leak audit's WebAssembly word pass (built by `npm run build:wasm`, kept in the repository).
copyFileSync(path.join(root, "src", "audit", "scanner.wasm"), path.join(outdir, "scanner.wasm"));
