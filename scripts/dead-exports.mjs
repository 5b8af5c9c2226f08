// Exports of src/ that no other file uses: `node scripts/dead-exports.mjs`. Each exported name is
// resolved through every import and re-export (index.ts included) with the type checker; a name
// whose only uses outside its file are re-exports is listed, marked `dead` when its own file does not
// use it either, `test-only` when only tests or benchmarks use it. A module loaded with import() (a
// verb's) and the entry points count as used whole. Run it before removing an export.
import path from "node:path";
import ts from "typescript";

const root = process.cwd();
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(root, "tsconfig.json"),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) =>
      console.error(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  },
);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const rel = (f) => path.relative(root, f);
const inSrc = (f) => rel(f).startsWith(`src${path.sep}`);

const resolve = (symbol) => {
  let s = symbol;
  while (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
  return s;
};

/** symbol -> files (other than its declaring file) using it, re-export specifiers left out. */
const uses = new Map();
/** Modules imported with import(): every export of theirs counts as used (`m.run` is not resolved). */
const loaded = new Set(["src/cli.ts", "src/export/verifier-main.ts"].map((f) => path.join(root, f)));
for (const sf of program.getSourceFiles()) {
  if (sf.isDeclarationFile || rel(sf.fileName).startsWith("node_modules")) continue;
  const visit = (node) => {
    const declaring =
      node.parent &&
      "name" in node.parent &&
      node.parent.name === node &&
      !ts.isShorthandPropertyAssignment(node.parent);
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = node.arguments[0];
      if (spec && ts.isStringLiteral(spec)) loaded.add(path.resolve(path.dirname(sf.fileName), spec.text));
    }
    if (ts.isIdentifier(node) && !declaring && !ts.isExportSpecifier(node.parent)) {
      const target = resolve(checker.getSymbolAtLocation(node));
      if (target?.declarations?.length) {
        const set = uses.get(target) ?? new Set();
        set.add(sf.fileName);
        uses.set(target, set);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

const rows = [];
for (const sf of program.getSourceFiles()) {
  if (!inSrc(sf.fileName) || sf.isDeclarationFile || loaded.has(sf.fileName)) continue;
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) continue;
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const target = resolve(exported);
    const declaredIn = target?.declarations?.[0]?.getSourceFile().fileName;
    if (declaredIn !== sf.fileName) continue; // a re-export: judged at its own file
    const users = [...(uses.get(target) ?? [])];
    const others = users.filter((f) => f !== sf.fileName);
    if (others.some(inSrc)) continue;
    const kind = others.length > 0 ? "test-only" : users.includes(sf.fileName) ? "internal" : "dead";
    rows.push(`${kind.padEnd(9)} ${rel(sf.fileName)} ${exported.name}`);
  }
}
rows.sort();
for (const r of rows) console.log(r);
const count = (k) => rows.filter((r) => r.startsWith(k)).length;
console.log(
  `${count("dead")} dead, ${count("internal")} used only in their file, ${count("test-only")} used only by tests or benchmarks`,
);
