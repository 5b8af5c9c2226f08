// How a sandbox provider's failed call reaches the trial's record: the Docker provider wraps the
// Engine API's error answers in the provider-agnostic SandboxApiError (the record's `sandbox`), so the
// trial phases classify by error class, never by a Docker detail (an HTTP status on the error).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Docker from "dockerode";
import { afterEach, describe, expect, it } from "vitest";
import { call, statusOf } from "../src/sandbox/docker/calls.ts";
import { SandboxApiError, SandboxUnavailableError } from "../src/sandbox/index.ts";
import { sandboxPhaseError } from "../src/trial/phases.ts";

let daemon: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (daemon ? daemon.close(resolve) : resolve(undefined)));
  daemon = undefined;
});

/** A loopback stand-in for the Engine API that answers every call with `status` and a message. */
async function answering(status: number, message: string): Promise<Docker> {
  daemon = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ message }));
  });
  await new Promise<void>((resolve) => daemon!.listen(0, "127.0.0.1", resolve));
  return new Docker({ host: "127.0.0.1", port: (daemon.address() as AddressInfo).port, protocol: "http" });
}

describe("the Docker provider's failed calls", () => {
  it("an error answer of the API becomes SandboxApiError with its status; the trial records `sandbox`", async () => {
    const docker = await answering(500, "driver failed programming external connectivity");
    const err = await call("start", () => docker.getContainer("c1").start()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxApiError);
    expect(statusOf(err)).toBe(500);
    expect((err as Error).message).toContain("driver failed programming external connectivity");
    expect(sandboxPhaseError("create", err)).toMatchObject({ kind: "sandbox" });
  });

  it("a daemon that does not answer is SandboxUnavailableError (`sandbox-unavailable`)", async () => {
    const docker = await answering(200, "");
    await new Promise((resolve) => daemon!.close(resolve));
    daemon = undefined;
    const err = await call("ping", () => docker.ping()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toContain("is the Docker daemon running?");
    expect(sandboxPhaseError("create", err)).toMatchObject({ kind: "sandbox-unavailable" });
  });

  it("the phases read no provider's detail: an error carrying a statusCode but no class is kgate's bug", () => {
    const bare = Object.assign(new Error("(HTTP code 404) no such container"), { statusCode: 404 });
    expect(sandboxPhaseError("copyOut", bare)).toMatchObject({ kind: "internal" });
    expect(sandboxPhaseError("copyOut", new SandboxApiError("gone", 404))).toMatchObject({ kind: "sandbox" });
  });
});
