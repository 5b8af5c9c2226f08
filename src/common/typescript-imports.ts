// Lets this thread import a project's TypeScript (verifiers/<id>.ts) at run time: from the prebuilt
// bundle tsx's loader is registered on first need; from the sources bin/kgate.js has registered it.
let registering: Promise<void> | undefined;

async function registerTsx(): Promise<void> {
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  // Both hooks: a project may be an ES module or a CommonJS package scope.
  esm.register();
  commonJs.register();
}

/**
 * Before importing `file`: registers tsx's ES module and CommonJS hooks once per thread when the file
 * is TypeScript, unless kgate runs from its sources (an exported verifier imports plain JavaScript
 * where tsx is not installed). Every caller waits for the one registration, concurrent ones too.
 */
export function allowTypeScriptImport(file: string): Promise<void> {
  if (!/\.[cm]?ts$/.test(file) || import.meta.url.endsWith(".ts")) return Promise.resolve();
  registering ??= registerTsx();
  return registering;
}
