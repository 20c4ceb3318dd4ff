/**
 * The indexer's file edge: which files a source holds, and reading one note file with the
 * bad-input checks (unreadable, too large, binary, invalid UTF-8). Reads the file system;
 * returns plain values for indexer/indexer.ts. Nothing here writes.
 *
 * Notes source: a folder → every *.md, *.markdown, *.txt below it (hidden folders and
 * node_modules skipped, symlinked folders not followed), or one such file.
 * Transcripts source: a Claude Code projects root → `<root>/*\/*.jsonl` (plus `<root>/*.jsonl`
 * when pointed at one project folder), never anything under `subagents/`; a Codex CLI sessions
 * root → `<root>/YYYY/MM/DD/rollout-*.jsonl` (transcript/codex-tree.ts); or one .jsonl file.
 *
 * Invalid UTF-8 is decoded with U+FFFD replacement and indexed (counted as a warning);
 * when more than `maxReplacementShare` of the characters had to be replaced, the file is
 * treated as binary and skipped.
 */
import { codexRolloutFiles, isCodexSessionsTree } from '../transcript/codex-tree.js';
import { readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { extname, join, resolve } from 'node:path';
import type { SourceKind } from '../store/types.js';
import { MARKDOWN_EXTENSIONS, TEXT_EXTENSIONS } from './markdown.js';

/** Why an item was skipped (keys of the summary's `skipped`). */
export type SkipReason =
  | 'missing_source'
  | 'empty_source'
  | 'unreadable'
  | 'too_large'
  | 'binary'
  | 'unsupported'
  | 'embed_failed'
  | 'store_failed';

export interface Problem {
  path: string;
  reason: SkipReason;
  /** One line a person can act on (paths and reasons only, never file content). */
  message: string;
}

export const NOTE_EXTENSIONS = [...MARKDOWN_EXTENSIONS, ...TEXT_EXTENSIONS];
/** Folder names never descended into in a notes source. */
const SKIP_DIRS = new Set(['node_modules']);
/** Subagent transcripts: worker traffic, never indexed. */
export const SUBAGENT_DIR = 'subagents';

export interface SourceListing {
  files: string[];
  problems: Problem[];
}

function errMessage(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code ? `${err.code}` : String(err.message ?? e);
}

function readDir(dir: string, problems: Problem[]): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    problems.push({ path: dir, reason: 'unreadable', message: `cannot read folder ${dir} (${errMessage(e)}): skipped; fix its permissions to index it` });
    return [];
  }
}

const isNote = (name: string) => NOTE_EXTENSIONS.includes(extname(name).toLowerCase());

function walkNotes(dir: string, out: string[], problems: Problem[]): void {
  for (const d of readDir(dir, problems)) {
    const p = join(dir, d.name);
    if (d.isDirectory()) {
      if (!d.name.startsWith('.') && !SKIP_DIRS.has(d.name)) walkNotes(p, out, problems);
    } else if ((d.isFile() || d.isSymbolicLink()) && isNote(d.name) && !d.name.startsWith('.')) {
      if (d.isSymbolicLink()) {
        try {
          if (!statSync(p).isFile()) continue;
        } catch (e) {
          problems.push({ path: p, reason: 'unreadable', message: `${p} is a broken symlink (${errMessage(e)}): skipped` });
          continue;
        }
      }
      out.push(p);
    }
  }
}

function transcriptFilesIn(dir: string, problems: Problem[]): string[] {
  return readDir(dir, problems)
    .filter((d) => (d.isFile() || d.isSymbolicLink()) && d.name.endsWith('.jsonl'))
    .map((d) => join(dir, d.name));
}

/** The files a source holds right now, or a problem when the source itself is missing/empty. */
export function listSourceFiles(sourcePath: string, kind: SourceKind): SourceListing {
  const root = resolve(sourcePath);
  const problems: Problem[] = [];
  let st: Stats;
  try {
    st = statSync(root);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { files: [], problems: [{ path: root, reason: 'missing_source', message: `source ${root} does not exist (moved, deleted or not mounted?): skipped, its indexed documents are kept` }] };
    }
    return { files: [], problems: [{ path: root, reason: 'unreadable', message: `cannot read source ${root} (${errMessage(e)}): skipped, its indexed documents are kept` }] };
  }
  const files: string[] = [];
  if (st.isFile()) {
    const ok = kind === 'notes' ? isNote(root) : root.endsWith('.jsonl');
    if (ok) files.push(root);
    else problems.push({ path: root, reason: 'unsupported', message: `${root} is not a ${kind === 'notes' ? '.md, .markdown or .txt' : '.jsonl'} file: skipped` });
    return { files, problems };
  }
  if (kind === 'notes') walkNotes(root, files, problems);
  else if (isCodexSessionsTree(root)) files.push(...codexRolloutFiles(root)); // Codex CLI: YYYY/MM/DD/rollout-*.jsonl
  else {
    files.push(...transcriptFilesIn(root, problems));
    for (const d of readDir(root, problems)) {
      if (d.isDirectory() && d.name !== SUBAGENT_DIR) files.push(...transcriptFilesIn(join(root, d.name), problems));
    }
  }
  files.sort();
  if (files.length === 0 && problems.length === 0) {
    const what = kind === 'notes' ? '.md, .markdown or .txt files' : 'transcripts (<project>/<session>.jsonl)';
    problems.push({ path: root, reason: 'empty_source', message: `no ${what} found under ${root}: nothing to index there (is it the right folder${kind === 'notes' ? '' : ', or should --kind be notes'}?)` });
  }
  return { files, problems };
}

export function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex');
}

export type DecodeResult = { ok: true; text: string; replaced: number } | { ok: false };

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const lenientDecoder = new TextDecoder('utf-8', { fatal: false });

/** Decode UTF-8: strict when valid; with replacement when a few bytes are bad; not at all when most are. Pure. */
export function decodeUtf8(buf: Uint8Array, maxReplacementShare: number): DecodeResult {
  try {
    return { ok: true, text: strictDecoder.decode(buf), replaced: 0 };
  } catch {
    const text = lenientDecoder.decode(buf);
    const original = (() => { let n = 0; for (const c of text) if (c === '\uFFFD') n++; return n; })();
    if (text.length === 0 || original / text.length > maxReplacementShare) return { ok: false };
    return { ok: true, text, replaced: original };
  }
}

/** Does the buffer hold a NUL byte (the usual mark of a binary file)? */
export function looksBinary(buf: Uint8Array): boolean {
  return buf.includes(0);
}

export type NoteRead =
  | { ok: true; text: string; hash: string; replaced: number }
  | { ok: false; problem: Problem };

/** Read a note already known to be within the size limit; classify what is wrong with it. */
export async function readNote(path: string, maxReplacementShare: number): Promise<NoteRead> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    return { ok: false, problem: { path, reason: 'unreadable', message: `cannot read ${path} (${errMessage(e)}): skipped; fix its permissions to index it` } };
  }
  if (looksBinary(buf)) {
    return { ok: false, problem: { path, reason: 'binary', message: `${path} looks binary (NUL bytes): skipped` } };
  }
  const dec = decodeUtf8(buf, maxReplacementShare);
  if (!dec.ok) {
    return { ok: false, problem: { path, reason: 'binary', message: `${path} is not UTF-8 text (too many invalid bytes): skipped; convert it to UTF-8 to index it` } };
  }
  return { ok: true, text: dec.text, hash: sha256(buf), replaced: dec.replaced };
}
