// What every command receives: the project's paths and the streams to write to.
import type { Writable } from "node:stream";
import type { ProjectPaths } from "../project.ts";

export interface CommandContext {
  paths: ProjectPaths;
  stdout: Writable;
  stderr: Writable;
}
