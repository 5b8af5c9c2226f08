// The Docker sandbox provider: the local socket, DOCKER_HOST, or a host configured in
// kgate.config.json (`sandbox.docker`: tcp:// with TLS material, or ssh://), through dockerode. Its
// images (the sandbox image, and images derived from it) are built, pulled or found on that daemon;
// its sweep, a run's removal and the doctor's checks are that daemon's.
import { readFileSync } from "node:fs";
import type Docker from "dockerode";
import type { ProjectPaths } from "../../project.ts";
import { imageSourceOf } from "../image-source.ts";
import type {
  DerivedImageSpec,
  HostReport,
  HostSweep,
  SandboxImage,
  SandboxProvider,
  SandboxSpec,
} from "../provider.ts";
import { SandboxUnavailableError } from "../types.ts";
import { DockerClient } from "./client.ts";
import { DockerSandbox } from "./container.ts";
import { ensureDerivedImage } from "./derived-image.ts";
import { DISK_CAP_MECHANISM } from "./disk.ts";
import { runDoctor } from "./doctor.ts";
import { ensureImage } from "./image.ts";
import { type ReapResult, reapDeadRuns, removeRunContainers } from "./reaper.ts";
import { registryAuth, registryOf } from "./registry-auth.ts";

/** `sandbox.docker` in kgate.config.json; absent fields fall back to DOCKER_HOST and the local socket. */
export interface DockerEndpoint {
  /** unix:///var/run/docker.sock, tcp://host:2376, ssh://user@host */
  host?: string;
  /** Files of the TLS material for tcp:// (paths relative to the project root or absolute). */
  tls?: { ca: string; cert: string; key: string };
  /** For ssh://: a private key file (otherwise the SSH agent of SSH_AUTH_SOCK). */
  ssh?: { identityFile?: string };
}

/** dockerode's options for an endpoint (undefined: dockerode reads DOCKER_HOST, then the socket). */
export function dockerOptions(endpoint: DockerEndpoint = {}): Docker.DockerOptions | undefined {
  if (!endpoint.host) return undefined;
  const url = new URL(endpoint.host);
  if (url.protocol === "unix:") return { socketPath: url.pathname };
  const tls = endpoint.tls
    ? {
        ca: readFileSync(endpoint.tls.ca),
        cert: readFileSync(endpoint.tls.cert),
        key: readFileSync(endpoint.tls.key),
      }
    : {};
  if (url.protocol === "ssh:")
    return {
      protocol: "ssh",
      host: url.hostname,
      port: Number(url.port || 22),
      username: url.username || undefined,
      ...(endpoint.ssh?.identityFile
        ? { sshOptions: { privateKey: readFileSync(endpoint.ssh.identityFile) } }
        : {}),
    };
  const protocol = endpoint.tls ? "https" : "http";
  return { protocol, host: url.hostname, port: Number(url.port || (endpoint.tls ? 2376 : 2375)), ...tls };
}

/** The endpoint a DockerClient without options reaches: DOCKER_HOST, else the local socket. */
export function describeEndpoint(endpoint: DockerEndpoint = {}): string {
  return endpoint.host ?? process.env.DOCKER_HOST ?? "local";
}

export class DockerProvider implements SandboxProvider {
  readonly name = "docker";
  readonly host: string;
  readonly diskCap = DISK_CAP_MECHANISM;
  readonly docker: DockerClient;
  private readonly endpoint: string;
  /** `sandbox.image`: a registry reference to pull instead of building sandbox/. */
  private readonly imageRef?: string;
  private image?: Promise<SandboxImage>;
  /** Derived images by tag. */
  private readonly derived = new Map<string, Promise<SandboxImage>>();

  /** `name`: what records call the host (default: the endpoint); `image`: `sandbox.image`. */
  constructor(endpoint: DockerEndpoint = {}, o: { name?: string; image?: string } = {}) {
    this.docker = new DockerClient(dockerOptions(endpoint));
    this.endpoint = describeEndpoint(endpoint);
    this.host = o.name ?? this.endpoint;
    this.imageRef = o.image;
  }

  prepareImage(
    paths: ProjectPaths,
    onProgress?: (line: string) => void,
    options: { force?: boolean } = {},
  ): Promise<SandboxImage> {
    if (this.image && !options.force) return this.image;
    const image = (async () => {
      const source = imageSourceOf(paths, this.imageRef);
      const ref = await ensureImage(source, paths, { docker: this.docker, onProgress, force: options.force });
      const labels = await this.docker.imageLabels(ref);
      return { ref, id: await this.docker.imageId(ref), base: labels["kgate.sandbox.base"] ?? null };
    })();
    this.image = image;
    image.catch(() => {
      if (this.image === image) this.image = undefined;
    });
    return image;
  }

  prepareDerivedImage(spec: DerivedImageSpec, onProgress?: (line: string) => void): Promise<SandboxImage> {
    let image = this.derived.get(spec.tag);
    if (!image) {
      image = ensureDerivedImage(this.docker, spec, onProgress ?? (() => {})).then((id) => ({
        ref: spec.tag,
        id,
        base: spec.base,
      }));
      this.derived.set(spec.tag, image);
      image.catch(() => this.derived.delete(spec.tag));
    }
    return image;
  }

  findImage(ref: string): Promise<string | null> {
    return this.docker.imageId(ref);
  }

  pushImage(ref: string, target: string, onProgress?: (line: string) => void): Promise<string> {
    return this.docker.pushImage(ref, target, registryAuth(registryOf(target)), onProgress);
  }

  create(spec: SandboxSpec): Promise<DockerSandbox> {
    return DockerSandbox.create({
      image: spec.image,
      limits: spec.limits,
      network: spec.network,
      labels: spec.labels,
      requirements: spec.requirements,
      deadlineSec: spec.deadlineSec,
      docker: this.docker,
    });
  }

  /** This daemon's containers and volumes of kgate processes that are gone (bounded: reaper.ts). */
  async reap(): Promise<HostSweep[]> {
    return [await this.sweep(() => reapDeadRuns(this.docker))];
  }

  /** This daemon's containers and volumes of run `runId` (bounded: reaper.ts). */
  async removeRun(runId: string): Promise<HostSweep[]> {
    return [await this.sweep(() => removeRunContainers(runId, this.docker))];
  }

  async doctor(paths: ProjectPaths): Promise<HostReport[]> {
    const checks = await runDoctor(paths, this.docker, this.imageRef).catch((err: Error) => [
      { name: "daemon", ok: false, detail: err.message },
    ]);
    return [{ host: this.host, endpoint: this.endpoint, capacity: null, checks }];
  }

  /** One sweep of this daemon as its host's entry: what went, or why nothing could. */
  private async sweep(work: () => Promise<ReapResult>): Promise<HostSweep> {
    try {
      return { host: this.host, ...(await work()) };
    } catch (err) {
      if (!(err instanceof SandboxUnavailableError)) throw err;
      return { host: this.host, removed: [], volumes: [], error: err.message };
    }
  }
}
