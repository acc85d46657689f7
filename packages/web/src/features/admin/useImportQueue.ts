/**
 * The import screen's queue: what was dropped, grouped into uploads (a loose file is one; a folder goes whole, as
 * the server makes one title of a folder of media parts), sent one at a time (the server imports one file at a
 * time anyway), each file with its phase: waiting, uploading (its bytes), parsing and indexing (the upload is in,
 * the server is at work), imported (with its warnings) or refused (with the reason).
 */
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { CONSOLE_MESSAGES as M, type ImportReport } from '@lectern/core';
import { importFiles, type UploadFile } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { kindOf } from './importKinds.ts';

export type Phase = 'waiting' | 'uploading' | 'processing' | 'imported' | 'refused';

export interface QueuedFile {
  id: number;
  name: string;
  size: number;
  batch: number;
  phase: Phase;
  /** bytes of this file sent so far */
  sent: number;
  /** the refusal's reason */
  reason: string | null;
  /** the title this file became, with the chapters and what the import warned about */
  result: { book_id: string; title: string; chapters: number; warnings: string[] } | null;
}

interface Batch {
  id: number;
  files: (UploadFile & { id: number })[];
  replace?: string;
  /** topic names the titles get (the page's topic field when they were queued) */
  topics?: readonly string[];
}

type Action =
  | { type: 'add'; files: QueuedFile[] }
  | { type: 'progress'; batch: number; sent: number }
  | { type: 'sent'; batch: number }
  | { type: 'report'; batch: number; report: ImportReport }
  | { type: 'failed'; batch: number; reason: string };

const baseName = (name: string) => name.split('/').pop() ?? name;

function reduce(state: QueuedFile[], action: Action): QueuedFile[] {
  switch (action.type) {
    case 'add':
      return [...state, ...action.files];
    case 'progress': {
      // the multipart body carries the files in order: bytes sent so far fill them one after another
      let left = action.sent;
      return state.map((f) => {
        if (f.batch !== action.batch) return f;
        const sent = Math.max(0, Math.min(f.size, left));
        left -= f.size;
        return { ...f, phase: 'uploading', sent };
      });
    }
    case 'sent':
      return state.map((f) => (f.batch === action.batch ? { ...f, phase: 'processing', sent: f.size } : f));
    case 'report': {
      const mine = state.filter((f) => f.batch === action.batch);
      const failedFor = (f: QueuedFile) => action.report.failed.find((x) => x.file === f.name || baseName(x.file) === baseName(f.name));
      // A folder of parts is one title: its files share it; a book's title names its file.
      const title = mine.length === 1 || action.report.imported.length === 1 ? action.report.imported[0] : undefined;
      const unmatched = action.report.failed.filter((x) => !mine.some((f) => failedFor(f) === x));
      return state.map((f) => {
        if (f.batch !== action.batch) return f;
        const failed = failedFor(f);
        if (failed) return { ...f, phase: 'refused', reason: failed.reason };
        if (title) return { ...f, phase: 'imported', result: title };
        const byName = action.report.imported.find((t) => baseName(f.name).toLowerCase().includes(t.title.toLowerCase()));
        if (byName) return { ...f, phase: 'imported', result: byName };
        if (unmatched.length) return { ...f, phase: 'refused', reason: unmatched.map((u) => `${u.file}: ${u.reason}`).join(' ') };
        return { ...f, phase: 'imported', result: action.report.imported[0] ?? null };
      });
    }
    case 'failed':
      return state.map((f) => (f.batch === action.batch ? { ...f, phase: 'refused', reason: action.reason } : f));
  }
}

let nextId = 1;

export interface Dropped {
  file: File;
  /** the path below what was dropped: "course/01.mp4" for a folder's file, the name for a loose file */
  path: string;
}

export function useImportQueue() {
  const [files, dispatch] = useReducer(reduce, []);
  const batches = useRef<Batch[]>([]);
  const running = useRef(false);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  const pump = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    try {
      for (let batch = batches.current.shift(); batch; batch = batches.current.shift()) {
        const id = batch.id;
        try {
          const report = await importFiles(batch.files, {
            replace: batch.replace,
            topics: batch.topics,
            onProgress: (sent) => live.current && dispatch({ type: 'progress', batch: id, sent }),
            onSent: () => live.current && dispatch({ type: 'sent', batch: id }),
          });
          if (live.current) dispatch({ type: 'report', batch: id, report });
        } catch (e) {
          if (live.current) dispatch({ type: 'failed', batch: id, reason: isApiError(e) ? e.detail : M.importFailed });
        }
      }
    } finally {
      running.current = false;
    }
  }, []);

  /** Queues what was dropped or picked: loose files one upload each, each top folder one upload. */
  const add = useCallback(
    (dropped: readonly Dropped[], opts: { replace?: string; topics?: readonly string[] } = {}) => {
      const groups = new Map<string, Dropped[]>();
      const refused: QueuedFile[] = [];
      for (const d of dropped) {
        const name = d.path || d.file.name;
        if (!kindOf(name)) {
          refused.push({ id: nextId++, name, size: d.file.size, batch: 0, phase: 'refused', sent: 0, reason: M.unknownKind(name), result: null });
          continue;
        }
        const slash = name.indexOf('/');
        const key = slash > 0 ? `dir:${name.slice(0, slash)}` : `file:${nextId++}`;
        groups.set(key, [...(groups.get(key) ?? []), d]);
      }
      const queued: QueuedFile[] = [];
      for (const group of groups.values()) {
        const batch: Batch = { id: nextId++, files: [], replace: opts.replace, topics: opts.topics };
        for (const d of group) {
          const id = nextId++;
          const name = d.path || d.file.name;
          batch.files.push({ id, file: d.file, name });
          queued.push({ id, name, size: d.file.size, batch: batch.id, phase: 'waiting', sent: 0, reason: null, result: null });
        }
        batches.current.push(batch);
      }
      dispatch({ type: 'add', files: [...refused, ...queued] });
      void pump();
    },
    [pump],
  );

  return { files, add };
}
