/**
 * The files of a drop or a picker, with their paths below what was chosen: a dropped folder is walked through the
 * File System entries API (readEntries answers in batches until it answers none); a folder picked with the
 * `webkitdirectory` input carries webkitRelativePath already.
 */
import type { Dropped } from './useImportQueue.ts';

const readAll = (reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> =>
  new Promise((resolve, reject) => {
    const out: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (!batch.length) return resolve(out);
        out.push(...batch);
        next();
      }, reject);
    next();
  });

const fileOf = (entry: FileSystemFileEntry): Promise<File> => new Promise((resolve, reject) => entry.file(resolve, reject));

async function walk(entry: FileSystemEntry, prefix: string, out: Dropped[]): Promise<void> {
  if (entry.isFile) {
    out.push({ file: await fileOf(entry as FileSystemFileEntry), path: prefix + entry.name });
  } else if (entry.isDirectory) {
    const children = await readAll((entry as FileSystemDirectoryEntry).createReader());
    children.sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    for (const child of children) await walk(child, `${prefix}${entry.name}/`, out);
  }
}

export async function filesOfDrop(data: DataTransfer): Promise<Dropped[]> {
  const entries = Array.from(data.items ?? [])
    .filter((i) => i.kind === 'file')
    .map((i) => (typeof i.webkitGetAsEntry === 'function' ? i.webkitGetAsEntry() : null));
  if (entries.length && entries.every((e) => e !== null)) {
    const out: Dropped[] = [];
    for (const e of entries) await walk(e, '', out);
    return out;
  }
  return filesOfList(data.files);
}

export function filesOfList(list: FileList | null): Dropped[] {
  return Array.from(list ?? []).map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}
