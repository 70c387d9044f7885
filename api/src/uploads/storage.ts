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
  readonly root: string;
}

export const PUBLIC_PREFIX = '/storage/';

export function localDiskStorage(root: string): FileStorage {
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
      if (!publicPath?.startsWith(PUBLIC_PREFIX)) return;
      const relative = publicPath.slice(PUBLIC_PREFIX.length);
      const full = path.resolve(root, relative);
      if (!full.startsWith(path.resolve(root) + path.sep)) return; // never outside the root
      await fs.rm(full, { force: true });
    },
  };
}
