// What `kgate import` writes where the curator's work is still to do: a verifier stub that loads
// (it declares every variant of task.json, so `kgate check` reaches its solver, which throws naming
// the Harbor tests to port), variant stubs with the artefact's canary, and an audit file with no
// gated item yet (the derived items, the artefact's name, canary and prose, are audited at once).

export function stubVerifier(id: string, verifyImport: string, variants: readonly string[]): string {
  const sets = variants.map((v) => `${JSON.stringify(v)}: {}`).join(", ");
  return `// Verifier stub for ${id}, imported from a Harbor task: Harbor judged it with
// tasks/${id}/harbor/tests/ inside the agent's container. A kgate verifier is a pure function of the
// environment data and a set of conventions, run on the host: write the reference solver, declare
// the outputs in tasks/${id}/task.json, and replace this stub (the curator's step). Until then every
// check that solves says so, and every trial is unverified with this message.
import { defineVerifier } from "${verifyImport}";

export default defineVerifier<Record<string, never>>({
  conventions: { artefact: {}, default: {}, variants: { ${sets} } },
  solve() {
    throw new Error("verifiers/${id}.ts is a stub imported from Harbor (the curator's step): port tasks/${id}/harbor/tests/test.sh");
  },
});
`;
}

export function variantStub(kind: "perturbed" | "compressed", canary: string): string {
  const what =
    kind === "perturbed"
      ? "the artefact with plausible but wrong conventions (e.g. 12% -> 15%), its markers kept"
      : "every convention of the artefact in far fewer bytes, one line each";
  return `<!-- kgate-canary: ${canary} -->
TODO (the curator's step): write the ${kind} variant here: ${what}.
`;
}

export function auditStub(schemaRef: string): string {
  const audit = {
    $schema: schemaRef,
    items: [],
    ignoreNumbers: [],
    allowlist: [],
  };
  return `${JSON.stringify(audit, null, 2)}\n`;
}
