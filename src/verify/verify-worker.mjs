// The killable verifier's worker entry when kgate runs from its TypeScript sources: registers tsx
// (kgate's own modules and the project's verifiers are TypeScript; the project may be an ES module or
// a CommonJS scope, as bin/kgate.js does), then runs worker-entry.ts.
import { register as registerCommonJs } from "tsx/cjs/api";
import { register } from "tsx/esm/api";

register();
registerCommonJs();
await import("./worker-entry.ts");
