// The provider is the only door to a sandbox: nothing but the provider registry imports a provider's
// folder, the interface's required methods are the ones docs/architecture.md marks required, and the
// `sandbox` section is read by the chosen provider's schema, its errors naming the file and the field.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSandboxConfig, SandboxConfigError, sandboxProviderFor } from "../src/sandbox/index.ts";
import { tempProject } from "./support/project.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SRC = path.join(ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith(".ts") ? [file] : [];
  });
}

/** The methods an interface of `file` declares (its body's `name(` and `name?(` lines), and whether each is required. */
function methodsOf(file: string, name: string): Array<{ name: string; required: boolean }> {
  const text = readFileSync(path.join(SRC, "sandbox", file), "utf8");
  const start = text.indexOf(`export interface ${name} `);
  const body = text.slice(start, text.indexOf("\n}\n", start));
  return [...body.matchAll(/^ {2}(\w+)(\??)(?:<[^>]*>)?\(/gm)].map((m) => ({
    name: m[1]!,
    required: m[2] === "",
  }));
}

/** The required methods of SandboxProvider and TrialSandbox (with the Sandbox it extends). */
function requiredMethods(): string[] {
  return [
    ...methodsOf("provider.ts", "SandboxProvider"),
    ...methodsOf("provider.ts", "TrialSandbox"),
    ...methodsOf("types.ts", "Sandbox"),
  ]
    .filter((m) => m.required)
    .map((m) => m.name)
    .sort();
}

function withSandbox(section: unknown) {
  const paths = tempProject();
  writeFileSync(paths.config, JSON.stringify({ sandbox: section }));
  return paths;
}

function configError(section: unknown): string {
  try {
    loadSandboxConfig(withSandbox(section));
  } catch (err) {
    if (err instanceof SandboxConfigError) return err.message;
    throw err;
  }
  return "no error";
}

describe("the provider is the only door", () => {
  it("only the provider registry imports the Docker provider's folder", () => {
    const importers = sourceFiles(SRC).filter((file) => {
      if (file.startsWith(path.join(SRC, "sandbox", "docker") + path.sep)) return false;
      return /from "[^"]*\/docker\/[^"]+"/.test(readFileSync(file, "utf8"));
    });
    expect(importers.map((f) => path.relative(ROOT, f))).toEqual(["src/sandbox/config.ts"]);
  });

  it("the interface requires exactly the methods docs/architecture.md marks required", () => {
    const doc = readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");
    const section = doc.slice(
      doc.indexOf("## The sandbox provider interface"),
      doc.indexOf("## The failure taxonomy"),
    );
    // each row whose second cell is "yes": the names in backticks of its first cell
    const marked = [...section.matchAll(/^\| ([^|]+) \| yes \|/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/`(\w+)/g)].map((n) => n[1]!),
    );
    // create, prepareImage; exec, readFile, writeFile, stop, collectOutputs, remove: 2 + 6 = 8
    // (13 before issue 41: putFiles, execStream, prepareDerivedImage, findImage and reap were required).
    expect(requiredMethods()).toEqual(marked.sort());
    expect(marked).toHaveLength(8);
  });
});

describe("kgate.config.json sandbox, read by the chosen provider's schema", () => {
  it("defaults to the local Docker daemon, building sandbox/", () => {
    const config = loadSandboxConfig(tempProject());
    expect(config).toMatchObject({ provider: "docker", docker: {} });
    expect(config.image).toBeUndefined();
    expect(sandboxProviderFor(tempProject()).name).toBe("docker");
  });

  it("an unknown provider names the field and the known ones", () => {
    expect(configError({ provider: "kubernetes" })).toMatch(
      /kgate\.config\.json: sandbox\.provider: unknown provider "kubernetes" \(known: docker\)$/,
    );
  });

  it("a key of no provider's schema names the field and the chosen provider's settings", () => {
    expect(configError({ namespace: "kgate" })).toMatch(
      /kgate\.config\.json: sandbox\.namespace: not a setting of the "docker" provider \(its settings: provider, image, docker, hosts\)$/,
    );
  });

  it("a bad value of the provider's own keys, or of the image reference, names its field", () => {
    expect(configError({ docker: { host: "http://x" } })).toMatch(
      /sandbox\.docker\.host: must start with unix:\/\/, tcp:\/\/ or ssh:\/\//,
    );
    expect(configError({ image: "Not A Reference" })).toMatch(/sandbox\.image: must be an image reference/);
    expect(configError([])).toMatch(/kgate\.config\.json: sandbox: must be an object$/);
  });

  it("sandbox.image is kept for the provider: a registry reference, pinned by digest or not", () => {
    const pinned = `registry.example.com/team/kgate-sandbox@sha256:${"a".repeat(64)}`;
    expect(loadSandboxConfig(withSandbox({ image: pinned })).image).toBe(pinned);
    expect(loadSandboxConfig(withSandbox({ image: "localhost:5000/kgate-sandbox:1" })).image).toBe(
      "localhost:5000/kgate-sandbox:1",
    );
  });
});
