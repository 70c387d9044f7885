/**
 * Errors the API answers with. Messages are translation keys ('api:...' or 'validation:...'),
 * translated once, in the error handler, in the request's language.
 */
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly errors?: FieldErrors,
    public readonly vars?: Record<string, unknown>,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
  /** A machine-readable reason the client acts on (e.g. two_factor_enrolment_required), beside the message. */
  code?: string;
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
