// A writable stream that keeps what is written to it as text: the stderr a test hands to a progress
// line or a session, read back after; `isTTY` as a terminal's stream has it, when a test needs the
// live line.
import { Writable } from "node:stream";

export class TextSink extends Writable {
  text = "";
  constructor(readonly isTTY?: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}
