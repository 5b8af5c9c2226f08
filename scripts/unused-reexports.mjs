// Names a folder's index.ts exports that nothing outside the folder imports from it (src/, test/,
// bench/, scripts/): re-exports nobody needs. `node scripts/unused-reexports.mjs`; with `--src`, only
// importers in src/ count (what the tests alone keep alive). Dead exports of other files: knip.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = process.cwd();
const SRC = path.join(root, "src");
const onlySrc = process.argv.includes("--src");
const files = (d) =>
  readdirSync(d).flatMap((n) => {
    const f = path.join(d, n);
    if (n === "node_modules" || n === "fixtures") return [];
    return statSync(f).isDirectory()
      ? files(f)
      : /\.(ts|tsx|mjs)$/.test(n) && !n.endsWith(".d.ts")
        ? [f]
        : [];
  });
const folderOf = (f) => path.relative(SRC, f).split(path.sep)[0];
const indexes = readdirSync(SRC)
  .map((d) => path.join(SRC, d, "index.ts"))
  .filter((f) => statSync(path.dirname(f)).isDirectory() && files(path.dirname(f)).includes(f));

const program = ts.createProgram(indexes, {
  allowImportingTsExtensions: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
});
const checker = program.getTypeChecker();
const exported = new Map(
  indexes.map((f) => {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(f));
    return [f, new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : [])];
  }),
);

const used = new Map(indexes.map((f) => [f, new Set()]));
const dirs = onlySrc ? ["src"] : ["src", "test", "bench", "scripts"];
for (const file of dirs.flatMap((d) => files(path.join(root, d)))) {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    let spec;
    let names = [];
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      spec = node.moduleSpecifier.text;
      const clause = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (clause && (ts.isNamedImports(clause) || ts.isNamedExports(clause)))
        names = clause.elements.map((e) => (e.propertyName ?? e.name).text);
      else names = ["*"];
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      spec = node.arguments[0]?.text;
      names = ["*"];
    }
    if (spec?.startsWith(".")) {
      const target = path.resolve(path.dirname(file), spec);
      const set = used.get(target);
      if (set && !(file.startsWith(SRC) && folderOf(file) === folderOf(target)))
        for (const n of names) set.add(n);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
let count = 0;
for (const [index, names] of exported) {
  const u = used.get(index);
  if (u.has("*")) continue;
  const unused = [...names].filter((n) => !u.has(n)).sort();
  if (unused.length === 0) continue;
  count += unused.length;
  console.log(`${path.relative(root, index)}: ${unused.join(", ")}`);
}
console.log(
  `${count} names exported by an index.ts that nothing outside its folder imports${onlySrc ? " (importers in src/ only)" : ""}`,
);
