import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';

/**
 * Where uploaded files live. Local disk under DATA_DIR/storage by default; an object store
 * (S3-compatible) implements the same three methods when the API runs on several machines.
 */
export interface FileStorage {
  /** Stores the bytes and returns the public URL path (e.g. /storage/logos/ab12.png). */
  put(folder: string, extension: string, bytes: Buffer): Promise<string>;
  /** Removes a file previously returned by put; unknown or foreign paths are ignored. */
  remove(publicPath: string | null | undefined): Promise<void>;
  /** Stores a copy of a file under a new name (a record made from another gets its own file); null when it is gone. */
  copy(publicPath: string, folder: string): Promise<string | null>;
  readonly root: string;
}

export const PUBLIC_PREFIX = '/storage/';

export function localDiskStorage(root: string): FileStorage {
  /** The file behind a public path, or null for unknown or foreign paths (never outside the root). */
  const fileOf = (publicPath: string): string | null => {
    if (!publicPath.startsWith(PUBLIC_PREFIX)) return null;
    const full = path.resolve(root, publicPath.slice(PUBLIC_PREFIX.length));
    return full.startsWith(path.resolve(root) + path.sep) ? full : null;
  };
  return {
    root,
    async put(folder, extension, bytes) {
      const safeFolder = folder.replace(/[^a-z0-9-]/gi, '');
      const name = `${crypto.randomBytes(16).toString('hex')}.${extension.replace(/[^a-z0-9]/gi, '')}`;
      const dir = path.join(root, safeFolder);
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, name), bytes, { mode: 0o644 });
      return `${PUBLIC_PREFIX}${safeFolder}/${name}`;
    },
    async remove(publicPath) {
      const full = publicPath ? fileOf(publicPath) : null;
      if (full) await fs.rm(full, { force: true });
    },
    async copy(publicPath, folder) {
      const full = fileOf(publicPath);
      if (!full) return null;
      const bytes = await fs.readFile(full).catch(() => null);
      return bytes ? this.put(folder, path.extname(full).slice(1), bytes) : null;
    },
  };
}
