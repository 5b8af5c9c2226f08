// How calls to the Docker Engine API fail, in kgate's terms: a connection failure becomes
// SandboxUnavailableError with a hint, an API error SandboxApiError (with its HTTP status), an API
// error of a command in a running container is the sandbox's unavailability; a freeze the kernel refused, asked again; and how a build, pull or import stream's
// progress lines are followed.
import type Docker from "dockerode";
import { SandboxApiError, SandboxUnavailableError } from "../types.ts";

export type ProgressLine = (line: string) => void;

/** The HTTP status of a dockerode error (or of one wrapped by unavailable()), if it has one. */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof SandboxApiError) return err.status;
  const code = (err as { statusCode?: unknown }).statusCode;
  return typeof code === "number" ? code : undefined;
}

/**
 * A failed call in kgate's terms: the daemon's answer with an error status is SandboxApiError; an
 * error from the daemon's socket itself (no answer) means the sandbox is unavailable.
 */
export function unavailable(err: unknown, what: string): Error {
  if (err instanceof SandboxUnavailableError || err instanceof SandboxApiError) return err;
  const e = err as NodeJS.ErrnoException;
  const status = statusOf(err);
  if (status !== undefined) return new SandboxApiError(e.message, status, { cause: err });
  let hint = "";
  if (e.code === "ENOENT" || e.code === "ECONNREFUSED") hint = " (is the Docker daemon running?)";
  if (e.code === "EACCES")
    hint = " (permission denied on the Docker socket: add your user to the docker group)";
  return new SandboxUnavailableError(`Docker ${what} failed: ${e.message}${hint}`, { cause: err });
}

/**
 * The daemon's answer when the kernel could not freeze every process of a container at once (one was
 * forking, or in uninterruptible sleep; common on a loaded machine): runc thawed them again, and a
 * later attempt usually succeeds. The daemon answers 500, "Cannot pause container <id>: OCI runtime
 * pause failed: unable to freeze: unknown".
 */
export function freezeRefused(err: unknown): boolean {
  return statusOf(err) === 500 && /unable to freeze/.test((err as Error).message);
}

/** How long a stop without a bound of its own asks again after freezeRefused (the stop phase's bound is 30 s). */
export const FREEZE_RETRY_MS = 25_000;

/** Waits `ms`; false at once (or as soon as it aborts) when `bound` has aborted. */
export function pauseFor(ms: number, bound: AbortSignal): Promise<boolean> {
  if (bound.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      bound.removeEventListener("abort", aborted);
      resolve(ok);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    bound.addEventListener("abort", aborted, { once: true });
  });
}

export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw unavailable(err, what);
  }
}

/**
 * Like call, for a command in a running container: an API error there (409: the container stopped
 * under it, 404: it is gone) is the sandbox's failure too, never a bug of kgate.
 */
export async function execCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = unavailable(err, what);
    if (e instanceof SandboxUnavailableError) throw e;
    throw new SandboxUnavailableError(`Docker ${what} failed: ${e.message}`, { cause: err });
  }
}

export function followProgress(docker: Docker, stream: NodeJS.ReadableStream, onLine?: ProgressLine) {
  let failure: string | undefined;
  return new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        if (err) reject(err);
        else if (failure) reject(new Error(failure));
        else resolve();
      },
      (event: { stream?: string; status?: string; progress?: string; error?: string }) => {
        if (event.error) {
          failure = event.error;
          return;
        }
        const text = (event.stream ?? [event.status, event.progress].filter(Boolean).join(" ")).trimEnd();
        if (text && onLine) onLine(text);
      },
    );
  });
}
