import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Router, type Request, type Response } from 'express';

/**
 * The console's built files (admin/dist), compressed as the storefront's are
 * (api/src/storefront/storefront-pages.ts): the build writes name.js.br and name.js.gz beside each
 * script, stylesheet and page (admin/vite.config.ts), answered in the encoding the browser takes;
 * any other text file is compressed here once and kept. Hashed files under /assets/ are cached for a
 * year (immutable); everything else, index.html first, is revalidated on each load (no-cache), so a
 * new build shows at once. Client-side routes get index.html.
 */
const COMPRESSIBLE = /\.(js|mjs|css|svg|html|json|txt|map|webmanifest|ico)$/i;
/** Below this, compression saves less than the headers it adds. */
const MIN_COMPRESS = 1024;
export const IMMUTABLE = 'public, max-age=31536000, immutable';

type Encoding = 'br' | 'gzip';
/** The better encoding the browser takes (Chromium sends "gzip, deflate, br, zstd"), or none. */
const encodingOf = (req: Request): Encoding | null => (req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : null);

const made = new Map<string, { mtimeMs: number; body: Buffer }>();

/** A file compressed on the fly, once per version of the file. */
function compressed(file: string, stat: fs.Stats, encoding: Encoding): Buffer {
  const key = `${file}\0${encoding}`;
  const hit = made.get(key);
  if (hit && hit.mtimeMs === stat.mtimeMs) return hit.body;
  const raw = fs.readFileSync(file);
  const body =
    encoding === 'br'
      ? zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
      : zlib.gzipSync(raw, { level: 9 });
  made.set(key, { mtimeMs: stat.mtimeMs, body });
  return body;
}

/**
 * A file on disk in the encoding the browser takes: its .br/.gz beside it when the build wrote
 * one, else compressed here once (per version). The caller sets Cache-Control. Also used for the
 * translations at /locales (app.ts).
 */
export function sendCompressedFile(req: Request, res: Response, file: string, stat: fs.Stats = fs.statSync(file)): void {
  res.type(path.extname(file));
  const compressible = COMPRESSIBLE.test(file) && stat.size >= MIN_COMPRESS;
  if (compressible) res.vary('Accept-Encoding');
  const encoding = compressible ? encodingOf(req) : null;
  if (!encoding) return res.sendFile(file, { cacheControl: false, dotfiles: 'deny' });
  res.setHeader('Content-Encoding', encoding);
  const ready = `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
  if (fs.existsSync(ready)) return res.sendFile(ready, { cacheControl: false, acceptRanges: false });
  res.send(compressed(file, stat, encoding));
}

export function consoleStatic(dist: string): Router {
  const root = path.resolve(dist);

  const send = (req: Request, res: Response, file: string, stat: fs.Stats) => {
    const rel = path.relative(root, file).split(path.sep).join('/');
    res.setHeader('Cache-Control', rel.startsWith('assets/') ? IMMUTABLE : 'no-cache');
    sendCompressedFile(req, res, file, stat);
  };

  /** The file a URL path names inside the build, or null (outside it, hidden, a folder, missing). */
  const fileOf = (urlPath: string): { file: string; stat: fs.Stats } | null => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    if (decoded.includes('\0') || decoded.split('/').some((part) => part.startsWith('.'))) return null;
    const file = path.resolve(root, `.${decoded}`);
    if (!file.startsWith(root + path.sep)) return null;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(file, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR (a path under a file), ENAMETOOLONG: no such file, not a server error.
      return null;
    }
    return stat?.isFile() ? { file, stat } : null;
  };

  const router = Router();
  router.get(/.*/, (req, res, next) => {
    const found = fileOf(req.path);
    if (found && !found.file.endsWith('.br') && !found.file.endsWith('.gz')) return send(req, res, found.file, found.stat);
    // A hashed file that is not there (an old page asking for a replaced build): no page in its place.
    if (req.path.startsWith('/assets/')) return next();
    if (!req.accepts('html')) return next();
    const index = fileOf('/index.html');
    if (!index) return next();
    send(req, res, index.file, index.stat);
  });
  return router;
}
