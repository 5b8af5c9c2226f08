// The sandbox's layout as the sandbox image makes it (sandbox/Dockerfile), the same on every provider:
// the non-root user, its home and the work directory the agent starts in.

export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;
export const SANDBOX_HOME = "/home/agent";
export const SANDBOX_WORKDIR = "/home/agent/work";
