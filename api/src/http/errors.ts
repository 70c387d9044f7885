/**
 * Errors the API answers with. Messages are translation keys ('api:...' or 'validation:...'),
 * translated once, in the error handler, in the request's language. Each answers a machine code
 * beside the message: `code` when given, else its message's (error-codes.ts).
 */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly errors?: FieldErrors,
    public readonly vars?: Record<string, unknown>,
    public readonly headers?: Record<string, string>,
    /** A stable machine code overriding the one its message maps to (error-codes.ts). */
    public readonly code?: string,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'api:errors.unauthenticated') => new AppError(401, message);
export const forbidden = (message = 'api:errors.forbidden') => new AppError(403, message);
export const notFound = (message = 'api:errors.not_found') => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
export const locked = () => new AppError(423, 'api:auth.session_locked');

/** A 422 with one message on one field (the same shape zod failures produce). */
export function fieldError(field: string, message: string, vars?: Record<string, unknown>): AppError {
  return new AppError(422, 'api:errors.validation', { [field]: [message] }, vars);
}

export function validationFailed(errors: FieldErrors): AppError {
  return new AppError(422, 'api:errors.validation', errors);
}
