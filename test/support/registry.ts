// Test support: a real image registry (Debian's docker-registry, the distribution registry that
// scripts/setup.sh installs) on 127.0.0.1 and a free port, storing in a temporary folder, with
// htpasswd (bcrypt) credentials; stopped, by its pid, after the test file. Docker daemons reach
// registries on 127.0.0.0/8 over plain HTTP without configuration.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import bcrypt from "bcryptjs";
import { afterThis } from "./cleanups.ts";
import { tempDir } from "./project.ts";

export interface Registry {
  /** 127.0.0.1:<port>, as an image reference starts. */
  address: string;
  user: string;
  password: string;
  /** A Docker client config folder (DOCKER_CONFIG) holding the credentials, as `docker login` writes them. */
  configDir: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function answers(address: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${address}/v2/`);
    return response.status === 401 || response.status === 200;
  } catch {
    return false;
  }
}

export async function startRegistry(): Promise<Registry> {
  const dir = tempDir("kgate-registry-", "file");
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const [user, password] = ["trainer", "not-a-secret"];
  writeFileSync(path.join(dir, "htpasswd"), `${user}:${bcrypt.hashSync(password, 4)}\n`);
  writeFileSync(
    path.join(dir, "config.yml"),
    `version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: ${path.join(dir, "data")}
http:
  addr: ${address}
auth:
  htpasswd:
    realm: kgate-test
    path: ${path.join(dir, "htpasswd")}
`,
  );
  const registry: ChildProcess = spawn("docker-registry", ["serve", path.join(dir, "config.yml")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  registry.stderr?.on("data", (c: Buffer) => {
    log = (log + c.toString()).slice(-4000);
  });
  afterThis("file", async () => {
    if (registry.exitCode !== null) return;
    const exited = new Promise((r) => registry.once("exit", r));
    process.kill(registry.pid!, "SIGTERM");
    await exited;
  });
  for (let i = 0; !(await answers(address)); i++) {
    if (registry.exitCode !== null || i > 300)
      throw new Error(`docker-registry did not come up on ${address}:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const configDir = path.join(dir, "docker-config");
  mkdirSync(configDir);
  const auth = Buffer.from(`${user}:${password}`).toString("base64");
  writeFileSync(path.join(configDir, "config.json"), JSON.stringify({ auths: { [address]: { auth } } }));
  return { address, user, password, configDir };
}
