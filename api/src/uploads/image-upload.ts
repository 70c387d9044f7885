import multer from 'multer';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, fieldError } from '../http/errors.ts';

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024; // 5120 KB (docs/product.md section 9)
const IMAGE_TYPES = new Map([
  ['image/jpeg', 'jpg'],
  ['image/png', 'png'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
]);

/**
 * Multipart parsing for one optional image field. Files are held in memory (5 MB cap) and
 * accepted only when their bytes are an image: the name and declared type are not trusted.
 * SVG is refused on purpose (it can carry script).
 */
export function imageUpload(field: string): RequestHandler {
  return imagesUpload([field]);
}

/** The same for a form with several image fields (one file each). */
export function imagesUpload(fields: string[]): RequestHandler {
  const field = fields[0];
  const m = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_IMAGE_BYTES, files: fields.length, fields: 50, fieldSize: 64 * 1024 },
  });
  const parser = fields.length === 1 ? m.single(field) : m.fields(fields.map((name) => ({ name, maxCount: 1 })));
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    parser(req, res, (err: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(new AppError(413, 'validation:image_too_large', { [field]: ['validation:image_too_large'] }));
        if (err.code === 'LIMIT_UNEXPECTED_FILE') return next(fieldError(err.field ?? field, 'validation:image_invalid'));
        return next(fieldError(field, 'validation:invalid_value'));
      }
      // Busboy's parse errors (no boundary, truncated body ...) are the client's doing.
      next(new AppError(400, 'api:errors.multipart_invalid'));
    });
  };
}

/** The uploaded image of req.file after its bytes are checked, or null when none was sent. */
export async function checkedImage(req: Request, field: string): Promise<{ bytes: Buffer; extension: string } | null> {
  const many = req.files as Record<string, Express.Multer.File[]> | undefined;
  const file = req.file?.fieldname === field ? req.file : many && !Array.isArray(many) ? many[field]?.[0] : undefined;
  if (!file) return null;
  const detected = await fileTypeFromBuffer(file.buffer);
  const extension = detected ? IMAGE_TYPES.get(detected.mime) : undefined;
  if (!extension) throw fieldError(field, 'validation:image_invalid');
  return { bytes: file.buffer, extension };
}
