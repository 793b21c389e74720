/**
 * Package invariants: the core imports no `node:` module, nothing from other layers, never uses `console`
 * (the layering and stdout rules of docs/architecture.md "Packages and layers"), and every public export carries
 * a doc comment.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const srcDir = fileURLToPath(new URL('.', import.meta.url));
const sources = readdirSync(srcDir).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));

describe('@switchboard/jsonrpc package', () => {
  it('the jsonrpc sources import no node: module, no other package, and never use console', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const name of sources) {
      const text = readFileSync(srcDir + name, 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((match) => match[1]!);
      for (const specifier of specifiers) expect(specifier, `${name} imports ${specifier}`).toMatch(/^\.\/[\w.]+\.js$/);
      expect(text, name).not.toMatch(/\bconsole\./);
      expect(text, name).not.toMatch(/\brequire\(|\bprocess\.|\bBuffer\b/);
    }
  });

  it('every export of the entry point, and every public member of its classes and interfaces, has a doc comment', () => {
    const program = ts.createProgram([`${srcDir}index.ts`], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const entry = checker.getSymbolAtLocation(program.getSourceFile(`${srcDir}index.ts`)!)!;
    const undocumented: string[] = [];
    const documented = (symbol: ts.Symbol): boolean => symbol.getDocumentationComment(checker).length > 0;
    for (let symbol of checker.getExportsOfModule(entry)) {
      const name = symbol.getName();
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (!documented(symbol)) undocumented.push(name);
      if (symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) {
        const declaration = symbol.declarations?.[0];
        const type = checker.getDeclaredTypeOfSymbol(symbol);
        for (const member of checker.getPropertiesOfType(type)) {
          const memberDeclaration = member.declarations?.[0];
          if (memberDeclaration === undefined || memberDeclaration.getSourceFile() !== declaration?.getSourceFile()) continue;
          const modifiers = ts.getCombinedModifierFlags(memberDeclaration);
          if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
          if (member.getName().startsWith('#')) continue;
          if (!documented(member)) undocumented.push(`${name}.${member.getName()}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});
