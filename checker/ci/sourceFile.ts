/**
 * A YAML or JSON input file parsed with its positions kept, so that a problem found in the parsed value
 * can be reported as `file:line:col field: message`. JSON files are parsed strictly (JSON.parse) and
 * located through the YAML parser, which reads JSON as the YAML subset it is.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ExitCode } from '../run/exitCodes.ts';
import { UserError } from '../run/userError.ts';

export interface Problem {
  /** The file as shown to the user (relative to the working directory when inside it). */
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** `checks[2].expect`; empty for a problem with the file as a whole. */
  readonly field: string;
  readonly message: string;
}

/** One or more problems in an input file; the CLI prints them all and exits 2. */
export class InputFileError extends UserError {
  constructor(
    readonly what: string,
    readonly problems: readonly Problem[],
  ) {
    super(
      `${what} ${problems[0]?.file ?? ''} has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n` +
        problems.map((p) => `  ${formatProblem(p)}`).join('\n'),
      ExitCode.Usage,
    );
  }
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

export type FieldPath = readonly (string | number)[];

export interface SourceFile {
  readonly path: string;
  readonly shownAs: string;
  /** The parsed value (plain JSON-like data). */
  readonly value: unknown;
  /** Line and column of the node at `path`, or of its nearest ancestor that exists; `key` points at the key. */
  locate(path: FieldPath, key?: boolean): { line: number; col: number };
  problem(path: FieldPath, message: string, key?: boolean): Problem;
}

export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/** `checks[2].budget.maxStates` */
export function fieldName(path: FieldPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Reads and parses a file; syntax errors throw `InputFileError` with their positions. */
export function readSourceFile(path: string, what: string): SourceFile {
  const shownAs = shownPath(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`Cannot read ${what.toLowerCase()} ${shownAs}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}.`);
  }
  return parseSource(text, path, what);
}

export function parseSource(text: string, path: string, what: string): SourceFile {
  const shownAs = shownPath(path);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, merge: true });
  const at = (offset: number) => {
    const p = lines.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const isJson = /\.json$/i.test(path);
  let value: unknown;
  if (isJson) {
    try {
      value = JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      const pos = /position (\d+)/.exec(msg);
      const { line, col } = pos ? at(Number(pos[1])) : { line: 1, col: 1 };
      throw new InputFileError(what, [{ file: shownAs, line, col, field: '', message: `not valid JSON: ${msg.replace(/ in JSON at position \d+.*$/, '')}` }]);
    }
    // JSON.parse keeps the last of two equal keys and drops the first without a word: a check, or a whole
    // list of them, would silently not run. The YAML parser, which reads JSON too, names them.
    const duplicates = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
    if (duplicates.length > 0) {
      throw new InputFileError(what, duplicates.map((e) => ({ file: shownAs, ...at(e.pos[0]), field: '', message: `not valid here: ${e.message.split('\n')[0]!} (JSON keeps only the last; give each key once)` })));
    }
  } else {
    if (doc.errors.length > 0) {
      throw new InputFileError(
        what,
        doc.errors.map((e) => ({ file: shownAs, ...at(e.pos[0]), field: '', message: `not valid YAML: ${yamlHint(e.code, e.message.split('\n')[0]!)}` })),
      );
    }
    value = doc.toJS({ maxAliasCount: 1000 });
  }
  const locate = (path: FieldPath, key = false) => {
    const range = rangeOf(doc, path, key);
    return range ? at(range) : { line: 1, col: 1 };
  };
  return {
    path,
    shownAs,
    value,
    locate,
    problem: (path, message, key = false) => ({ file: shownAs, ...locate(path, key), field: fieldName(path), message }),
  };
}

function yamlHint(code: string, message: string): string {
  if (code === 'BLOCK_AS_IMPLICIT_KEY') {
    return `${message}. To expect a violation write \`expect: { violates: Name }\` or quote it: \`expect: "violates: Name"\``;
  }
  if (code === 'DUPLICATE_KEY') return `${message} (a key appears twice in the same mapping)`;
  return message;
}

/** Start offset of the node at `path` (or of the deepest ancestor found). */
function rangeOf(doc: Document, path: FieldPath, key: boolean): number | undefined {
  let node: unknown = doc.contents;
  let offset = (node as Node | null)?.range?.[0];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return offset;
      const keyNode = pair.key as Node;
      const last = i === path.length - 1;
      if (last && key) return keyNode.range?.[0] ?? offset;
      node = pair.value;
      offset = (pair.value as Node | null)?.range?.[0] ?? keyNode.range?.[0] ?? offset;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      if (node === undefined) return offset;
      offset = (node as Node).range?.[0] ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}
