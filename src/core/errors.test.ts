/**
 * The error catalogue's guards (fastify's): every code's class follows from the code, every
 * code is raised somewhere in tq's sources, and docs/errors.md's table lists the catalogue exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AuthenticationError,
  CallsCompleteModeRequiredError,
  DigestMismatchError,
  ERROR_CATALOGUE,
  InvalidFieldError,
  InvalidRequestError,
  NotFoundError,
  ObjectDeletedError,
  RefObjectsNotFoundError,
  PermissionDeniedError,
  RequestSchemaError,
  RequestTooLargeError,
  ServerError,
  TqError,
  tqError,
  TransportError,
  type ErrorCode,
} from './errors.ts';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const ERRORS_FILE = join(SRC, 'core', 'errors.ts');
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
/** The codes raised through a class of their own rather than tqError(code). */
const DEDICATED = {
  TQ_REQUEST_SCHEMA: () => new RequestSchemaError([{ type: 'missing', loc: ['body', 'x'], msg: 'Field required' }]),
  TQ_OBJECT_DELETED: () => new ObjectDeletedError({ object: 'o', index: 0, when: 'then' }, '2024-01-01T00:00:00Z'),
  TQ_REF_OBJECTS_NOT_FOUND: () => new RefObjectsNotFoundError({ asked: 1, found: 0, diff: "{'d'}" }, ['d']),
  TQ_UNAUTHENTICATED: () => new AuthenticationError('no'),
  TQ_CALLS_COMPLETE_MODE_REQUIRED: () => new CallsCompleteModeRequiredError('acme/bot'),
} as const;

function errorFor(code: ErrorCode): TqError {
  return code in DEDICATED ? DEDICATED[code as keyof typeof DEDICATED]() : tqError(code as Parameters<typeof tqError>[0]);
}

const CLASS_BY_KIND: Record<string, Function> = {
  schema: RequestSchemaError,
  invalid: InvalidRequestError,
  field: InvalidFieldError,
  notFound: NotFoundError,
  conflict: DigestMismatchError,
  tooLarge: RequestTooLargeError,
  auth: AuthenticationError,
  permission: PermissionDeniedError,
  transport: TransportError,
  server: ServerError,
};

test('each code makes an error of its kind\'s class, with the catalogue\'s status and message, and where it is', () => {
  for (const code of CODES) {
    const entry = ERROR_CATALOGUE[code];
    const e = errorFor(code);
    assert.ok(e instanceof CLASS_BY_KIND[entry.kind], `${code} is a ${e.name}, not of kind ${entry.kind}`);
    assert.equal(e.name, e.constructor.name);
    assert.equal(e.code, code);
    assert.equal(e.status, entry.status);
  }
  const e = tqError('TQ_TABLE_NOT_FOUND', { project: 'a/b', digest: 'd' }, ['body', 'digest']);
  assert.ok(e instanceof NotFoundError && e instanceof TqError);
  assert.deepEqual([e.message, e.path, e.body()], ['Table a/b:d not found', ['body', 'digest'], { reason: 'Table a/b:d not found' }]);
  assert.deepEqual(new RequestSchemaError([{ type: 'missing', loc: ['body', 'x'], msg: 'Field required' }]).path, ['body', 'x']);
});

function productionSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return productionSources(path);
    return /\.(ts|mjs)$/.test(name) && !/\.test\.ts$|\.testing\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * Names declared at the top level of errors.ts (classes, functions, constants) after the
 * catalogue, each with the text of its declaration: a code used only there is raised wherever
 * that name is used.
 */
function errorsFileDeclarations(): Array<{ name: string; text: string }> {
  const text = readFileSync(ERRORS_FILE, 'utf8');
  const afterCatalogue = text.slice(text.indexOf('} satisfies Record<string, CatalogueEntry>'));
  const starts = [...afterCatalogue.matchAll(/^export (?:abstract )?(?:class|function|const) (\w+)/gm)];
  return starts.map((m, i) => ({ name: m[1], text: afterCatalogue.slice(m.index, starts[i + 1]?.index) }));
}

test('every catalogue code is raised somewhere in tq\'s sources (tests do not count)', () => {
  const others = productionSources(SRC).filter((f) => f !== ERRORS_FILE).map((f) => readFileSync(f, 'utf8'));
  const used = (word: string) => others.some((text) => new RegExp(`\\b${word}\\b`).test(text));
  const declarations = errorsFileDeclarations();
  const unused = CODES.filter((code) => {
    if (others.some((text) => text.includes(`'${code}'`))) return false;
    // Raised by a class or helper of errors.ts that other files use.
    return !declarations.some((d) => d.text.includes(`'${code}'`) && used(d.name));
  });
  assert.deepEqual(unused, [], 'codes nothing raises: raise them where production would, or remove them');
});

test('docs/errors.md lists every code with its status, class and message, in catalogue order', () => {
  const doc = readFileSync(join(SRC, '..', 'docs', 'errors.md'), 'utf8');
  const rows = doc.split('\n').filter((line) => line.startsWith('| `TQ_'));
  // Message arguments shown as `<name>`.
  const placeholders = new Proxy({}, { get: (_t, name) => `<${String(name)}>` }) as Record<string, string>;
  const expected = CODES.map((code) => {
    const entry = ERROR_CATALOGUE[code];
    return `| \`${code}\` | ${entry.status} | \`${errorFor(code).name}\` | \`${entry.message(placeholders)}\` |`;
  });
  assert.deepEqual(rows, expected);
});
