// Lists functions (declarations, methods, arrow and function expressions) in src/ longer than N lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const limit = Number(process.argv[2] ?? 80);
const files = (d) =>
  readdirSync(d).flatMap((n) => {
    const f = path.join(d, n);
    return statSync(f).isDirectory() ? files(f) : /\.tsx?$/.test(n) && !n.endsWith(".d.ts") ? [f] : [];
  });
const found = [];
for (const file of files("src")) {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node)) &&
      node.body
    ) {
      const a = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const b = sf.getLineAndCharacterOfPosition(node.end).line;
      const lines = b - a + 1;
      let name = node.name?.getText(sf);
      if (!name && ts.isVariableDeclaration(node.parent)) name = node.parent.name.getText(sf);
      if (lines > limit) found.push({ lines, where: `${file}:${a + 1}`, name: name ?? "(anonymous)" });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
found.sort((x, y) => y.lines - x.lines);
for (const f of found) console.log(`${String(f.lines).padStart(4)} ${f.where} ${f.name}`);
console.log(`${found.length} functions over ${limit} lines`);
