/**
 * Errors that carry their HTTP meaning. Services throw them; the error handler turns them into the JSON error
 * shape `{detail, errors?}`. Services never see a request, so this is how they say "400" or "404".
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: Record<string, string[]>) => new AppError(400, detail, errors);
export const fieldError = (field: string, message: string) => new AppError(400, message, { [field]: [message] });
export const forbidden = (detail: string) => new AppError(403, detail);
export const notFound = (detail: string) => new AppError(404, detail);
/** The database or the content store was not available: not the request's fault, and worth sending again. */
export const serviceUnavailable = (detail: string) => new AppError(503, detail);
