/**
 * Core's schemas are built on first use (docs/decisions.md "Core's schemas built on first use"): building all of them
 * when the client's schemas chunk was evaluated was one task of 70-270 ms at the reader's start (CPU x4,
 * docs/performance.md "The reader's start"), for the handful a screen parses. A module-level schema made with zod
 * outright would be built again on load; each must be wrapped in `lazySchema`. Read from the sources with the
 * TypeScript parser: every module-level `const` (of core, and the client's schemas module) whose value uses zod.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const CORE_SRC = join(__dirname, '..', '..', 'core', 'src');
const FILES = [
  ...readdirSync(CORE_SRC)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(CORE_SRC, f)),
  join(__dirname, '..', 'src', 'api', 'schemas.ts'),
];

/** Module-level constants built with zod (`z.` anywhere in the value) that are not `lazySchema(...)`. */
export function eagerSchemas(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const usesZod = (node: ts.Node): boolean =>
    (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'z') ||
    ts.forEachChild(node, usesZod) === true;
  const found: string[] = [];
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      const value = d.initializer;
      if (!value || ts.isArrowFunction(value) || ts.isFunctionExpression(value) || !usesZod(value)) continue;
      const lazy = ts.isCallExpression(value) && ts.isIdentifier(value.expression) && value.expression.text === 'lazySchema';
      if (!lazy) found.push(`${relative(join(CORE_SRC, '..', '..'), file)}: ${d.name.getText(sf)}`);
    }
  }
  return found;
}

describe('schemas built on first use', () => {
  it('finds a schema built on load', () => {
    const source = "import { z } from 'zod';\nexport const aSchema = z.object({ a: z.string() });\n" +
      'export const bSchema = lazySchema(() => z.string());\nconst make = () => z.number();\nexport const C = 3;\n';
    expect(eagerSchemas(join(CORE_SRC, 'x.ts'), source)).toEqual(['core/src/x.ts: aSchema']);
  });

  it('no module-level schema of core or the client is built on load', () => {
    expect(FILES.flatMap((f) => eagerSchemas(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
