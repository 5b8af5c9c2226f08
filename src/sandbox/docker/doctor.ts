// `kgate sandbox doctor` on one Docker daemon: what the sandbox needs (daemon, permissions, image, a way
// to get a base) and, for each missing piece, how to fix it.
import { spawnSync } from "node:child_process";
import { ownerAlive } from "../../common/index.ts";
import type { ProjectPaths } from "../../project.ts";
import { planImage } from "../image-source.ts";
import { LABEL, LABEL_OWNER } from "../labels.ts";
import type { DoctorCheck } from "../provider.ts";
import { bootstrapTag, DEFAULT_RECIPE } from "./bootstrap.ts";
import { DockerClient } from "./client.ts";
import { DEFAULT_BASE } from "./image.ts";

function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/** The checks of one daemon; `imageRef`: `sandbox.image`, a registry reference used instead of a build. */
export async function runDoctor(
  paths: ProjectPaths,
  docker: DockerClient = new DockerClient(),
  imageRef?: string,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  try {
    await docker.ping();
    const info = await docker.info();
    checks.push({
      name: "daemon",
      ok: true,
      detail: `Docker ${info.serverVersion} (API ${info.apiVersion}, cgroup v${info.cgroupVersion}, ${info.os})`,
    });
  } catch (err) {
    const message = (err as Error).message;
    const denied = /permission denied|EACCES/i.test(message);
    checks.push({
      name: denied ? "permissions" : "daemon",
      ok: false,
      detail: message,
      fix: denied
        ? "add your user to the docker group (sudo usermod -aG docker $USER) and log in again, or run as root"
        : "start the Docker daemon: bash scripts/docker-up.sh (or sudo systemctl start docker); set DOCKER_HOST for a remote daemon",
    });
    return checks;
  }

  if (imageRef) checks.push(await registryImageCheck(docker, imageRef));
  else checks.push(...(await builtImageChecks(paths, docker)));

  const containers = await docker.listContainers([`${LABEL}=1`, LABEL_OWNER]);
  const orphans = containers.filter((c) => !ownerAlive(c.labels[LABEL_OWNER] ?? ""));
  // Leftovers are not a failure: the next kgate command that uses Docker removes them.
  const gone = orphans.length ? " (the next `kgate run` removes them, or run `kgate sandbox reap`)" : "";
  checks.push({
    name: "leftover containers",
    ok: true,
    detail: `${containers.length} kgate container(s), ${orphans.length} of them from kgate processes that are gone${gone}`,
  });
  const volumes = await docker.listVolumes([`${LABEL}=1`, LABEL_OWNER]);
  const orphanVolumes = volumes.filter((v) => !ownerAlive(v.labels[LABEL_OWNER] ?? ""));
  checks.push({
    name: "leftover volumes",
    ok: true,
    detail: `${volumes.length} kgate disk volume(s), ${orphanVolumes.length} of them from kgate processes that are gone${orphanVolumes.length ? " (swept with the containers)" : ""}`,
  });
  return checks;
}

/** The image of `sandbox.image`: present on the daemon, or pulled by the first trial. */
async function registryImageCheck(docker: DockerClient, ref: string): Promise<DoctorCheck> {
  const present = await docker.imageExists(ref);
  return {
    name: "image",
    ok: true,
    detail: present
      ? `${ref} (sandbox.image) is on the daemon`
      : `${ref} (sandbox.image) is not on the daemon yet: the first trial pulls it`,
  };
}

/** The build of sandbox/: its CA bundle, the image, and a base to build it on when it is missing. */
async function builtImageChecks(paths: ProjectPaths, docker: DockerClient): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  let plan: ReturnType<typeof planImage> | null = null;
  try {
    plan = planImage(paths);
    checks.push({
      name: "extra CA certificates",
      ok: true,
      detail: plan.caFile
        ? `${plan.caFile} is trusted inside the image`
        : "none (set KGATE_EXTRA_CA_CERTS to a PEM bundle if HTTPS passes an intercepting proxy)",
    });
  } catch (err) {
    checks.push({
      name: "sandbox/",
      ok: false,
      detail: (err as Error).message,
      fix: "fix the file named above, or unset KGATE_EXTRA_CA_CERTS / NODE_EXTRA_CA_CERTS",
    });
  }

  if (plan) {
    const present = await docker.imageExists(plan.tag);
    checks.push({
      name: "image",
      ok: present,
      detail: present ? `${plan.tag} is built (from ${plan.contextDir})` : `${plan.tag} is not built yet`,
      fix: present
        ? undefined
        : "run `kgate sandbox build` (or let the first `kgate run` build it, 1-2 minutes)",
    });
    if (!present) {
      const base = (await docker.imageExists(DEFAULT_BASE))
        ? `${DEFAULT_BASE} is available`
        : (await docker.imageExists(bootstrapTag(DEFAULT_RECIPE)))
          ? `the bootstrapped base ${bootstrapTag(DEFAULT_RECIPE)} is cached`
          : null;
      const canBootstrap = hasCommand("debootstrap") && process.getuid?.() === 0;
      checks.push({
        name: "base image",
        ok: base !== null || canBootstrap,
        detail:
          base ??
          (canBootstrap
            ? `${DEFAULT_BASE} is not local: the build pulls it, or bootstraps a base with debootstrap`
            : `${DEFAULT_BASE} is not local, and debootstrap ${hasCommand("debootstrap") ? "needs root" : "is not installed"}`),
        fix:
          base !== null || canBootstrap
            ? undefined
            : "make Docker Hub reachable, or install debootstrap (apt-get install debootstrap) and build once as root",
      });
    }
  }
  return checks;
}
