// `kgate export harbor --for-training` without Docker: the option rules (usage errors, exit 2), the
// --push registry's form, Docker's credential config as kgate reads it (auths, identity tokens, a
// credential helper, a broken file named), and a provider that cannot push (the task fails by name,
// no folder is left). The images, the registry and Harbor's flow: export-training.docker.test.ts.
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkRegistry, exportTraining } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { registryAuth, registryOf } from "../src/sandbox/docker/registry-auth.ts";
import type { SandboxProvider } from "../src/sandbox/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempDir } from "./support/project.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));

const exportHarbor = (args: string[]) =>
  kgateInProcess([
    "--root",
    REPO.root,
    "export",
    "harbor",
    "bom-costing",
    "--out",
    tempDir("kgate-t-"),
    ...args,
  ]);

describe("kgate export harbor --for-training: option rules", () => {
  it.each([
    [["--for-training"], /--for-training needs --push <registry>/],
    [["--push", "127.0.0.1:5000"], /--push goes with --for-training/],
    [["--from", "r1"], /--from goes with --for-training/],
    [["--for-training", "--push", "127.0.0.1:5000", "--only", "retained"], /--only retained needs --from/],
    [
      ["--for-training", "--push", "Registry.Example.com"],
      /--push Registry\.Example\.com: expected a registry host/,
    ],
  ])("%j is a usage error", async (args, message) => {
    const result = await exportHarbor(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it("takes a host with a port or a dot, and a path; drops a trailing slash", () => {
    expect(checkRegistry("127.0.0.1:5000")).toBe("127.0.0.1:5000");
    expect(checkRegistry("registry.example.com/team/rl/")).toBe("registry.example.com/team/rl");
    expect(checkRegistry("localhost/x")).toBe("localhost/x");
    // "team/rl" would be Docker Hub's user "team": not a registry host.
    expect(() => checkRegistry("team/rl")).toThrow(/expected a registry host/);
  });
});

describe("registry credentials from Docker's own config", () => {
  function configWith(content: string): string {
    const dir = tempDir("kgate-docker-config-");
    writeFileSync(path.join(dir, "config.json"), content);
    return path.join(dir, "config.json");
  }

  it("reads the registry of a reference: a host with . or :, or localhost; else Docker Hub", () => {
    expect(registryOf("127.0.0.1:5000/bom-costing-plus-a:abc")).toBe("127.0.0.1:5000");
    expect(registryOf("localhost/x:1")).toBe("localhost");
    expect(registryOf("team/x:1")).toBe("docker.io");
  });

  it("decodes an auths entry (with or without a scheme in its key), an identity token, and none", () => {
    // base64("trainer:pa:ss") = dHJhaW5lcjpwYTpzcw== (the password keeps its colon).
    const file = configWith(
      JSON.stringify({
        auths: {
          "https://r.example.com/v2/": { auth: "dHJhaW5lcjpwYTpzcw==" },
          "t.example.com": { identitytoken: "tok" },
        },
      }),
    );
    expect(registryAuth("r.example.com", file)).toEqual({
      username: "trainer",
      password: "pa:ss",
      serveraddress: "r.example.com",
    });
    expect(registryAuth("t.example.com", file)).toEqual({
      identitytoken: "tok",
      serveraddress: "t.example.com",
    });
    expect(registryAuth("other.example.com", file)).toBeNull();
    expect(registryAuth("r.example.com", path.join(tempDir("kgate-none-"), "config.json"))).toBeNull();
  });

  it("asks the credential helper named for the registry (docker-credential-<name> get)", () => {
    const bin = tempDir("kgate-helper-");
    const helper = path.join(bin, "docker-credential-kgatetest");
    // The helper echoes the registry it was asked for (stdin) as the user name.
    writeFileSync(helper, '#!/bin/sh\nread r\nprintf \'{"Username":"%s","Secret":"s3"}\' "$r"\n');
    chmodSync(helper, 0o755);
    const file = configWith(JSON.stringify({ credHelpers: { "r.example.com": "kgatetest" } }));
    const before = process.env.PATH;
    process.env.PATH = `${bin}:${before}`;
    try {
      expect(registryAuth("r.example.com", file)).toEqual({
        username: "r.example.com",
        password: "s3",
        serveraddress: "r.example.com",
      });
    } finally {
      process.env.PATH = before;
    }
  });

  it("names the file and the field of a broken config", () => {
    expect(() => registryAuth("r", configWith("{ nope"))).toThrow(/config\.json: not JSON/);
    expect(() => registryAuth("r", configWith('{"auths": {"r": {"auth": 5}}}'))).toThrow(
      /config\.json: auths\.r\.auth: /,
    );
    expect(() => registryAuth("r", configWith('{"auths": {"r": {"auth": "bm9jb2xvbg=="}}}'))).toThrow(
      /auths\.r\.auth: not base64 of <user>:<password>/,
    );
  });
});

describe("a sandbox provider that cannot push", () => {
  it("fails each task by name and leaves no folder", async () => {
    const out = path.join(tempDir("kgate-t-"), "out");
    mkdirSync(out);
    const provider = {
      name: "fake",
      prepareImage: async () => ({ ref: "kgate-sandbox:fake", id: "sha256:0" }),
    } as unknown as SandboxProvider;
    const result = await exportTraining(REPO, ["bom-costing"], {
      out,
      conditions: ["+A"],
      kgateVersion: "0.0.0",
      registry: "127.0.0.1:5000",
      provider,
    });
    expect(result.tasks).toEqual([
      {
        task: "bom-costing",
        ok: false,
        error: 'the sandbox provider "fake" cannot build and push images for training exports',
        folders: [],
      },
    ]);
    expect(readdirSync(out).filter((f) => !f.startsWith("manifest"))).toEqual([]);
  });
});
