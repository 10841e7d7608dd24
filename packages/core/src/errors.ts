/** The error codes of spec § Errors. A client branches on `code`; each code has one HTTP status. */
export const errorCodes = [
  "VALIDATION_ERROR",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "MEDIA_QUOTA_EXCEEDED",
  "LANGUAGE_IN_USE",
  "CONFIGURATION_ERROR",
  "EXTERNAL_SERVICE_ERROR",
  "INTERNAL_ERROR",
  "SITE_UNAVAILABLE",
  // Adapter-level refusals (spec § Conventions rule 5 lets codes be added): a method the path does
  // not have (405, with `Allow`), and a body in a media type the route does not read (415).
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
  // Too many requests from one client (sign-in attempts, search): 429 with `Retry-After`
  // (spec § Errors leaves the rate-limit answer open; docs/errors.md).
  "RATE_LIMITED",
] as const;

/** One of the spec's error codes. */
export type ErrorCode = (typeof errorCodes)[number];

/** zod's flattened error shape, which the spec's validation `details` follow. */
export interface ValidationDetails {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

/** The body of every error response: `{ error, code, details? }`. */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: Record<string, unknown>;
}

/**
 * Marks engine errors across copies of this package: a host app that bundles a second copy of core
 * (or an adapter resolved to another version) still recognises them, which `instanceof` would not.
 */
const engineErrorBrand = Symbol.for("quire.EngineError");

/** The one error type the engine throws on purpose. Anything else is a bug and becomes INTERNAL_ERROR. */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly [engineErrorBrand] = true;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "EngineError";
    this.code = code;
    // Every validation error has `formErrors` and `fieldErrors` (spec § Errors); one about the
    // request as a whole (a body that is not JSON, an expired upload) names no field.
    this.details =
      details === undefined && code === "VALIDATION_ERROR"
        ? { formErrors: [message], fieldErrors: {} }
        : details;
  }
}

/** True for errors the engine raised on purpose (as opposed to bugs), from any copy of core. */
export function isEngineError(err: unknown): err is EngineError {
  return (
    typeof err === "object" &&
    err !== null &&
    (err as { [engineErrorBrand]?: unknown })[engineErrorBrand] === true &&
    (errorCodes as readonly unknown[]).includes((err as { code?: unknown }).code)
  );
}

/** A 400 for a whole request, optionally with zod-shaped field details. */
export function validationError(message: string, details?: ValidationDetails): EngineError {
  return new EngineError("VALIDATION_ERROR", message, details as unknown as Record<string, unknown>);
}

/** A 400 naming one field, shaped like zod's flattened errors. */
export function invalidField(field: string, message: string): EngineError {
  return validationError(`${field}: ${message}`, { formErrors: [], fieldErrors: { [field]: [message] } });
}

/** A 404 for a resource that does not exist (or that the caller may not see). */
export function notFound(what: string, id?: string): EngineError {
  return new EngineError("NOT_FOUND", id === undefined ? `${what} not found` : `${what} ${id} not found`);
}

/** A 409: duplicate address, media already attached, invalid state transition. */
export function conflict(message: string): EngineError {
  return new EngineError("CONFLICT", message);
}

/** A 401: missing or invalid auth. */
export function unauthorized(message = "Authentication required"): EngineError {
  return new EngineError("UNAUTHORIZED", message);
}

/** A 403: authenticated but not allowed. */
export function forbidden(message = "Not allowed"): EngineError {
  return new EngineError("FORBIDDEN", message);
}

/**
 * The response body for any thrown value. An {@link EngineError} keeps its code, message and details;
 * anything else becomes a generic INTERNAL_ERROR so no stack, SQL or driver text leaks out.
 */
export function toErrorBody(err: unknown): ErrorBody {
  if (isEngineError(err)) {
    return err.details === undefined
      ? { error: err.message, code: err.code }
      : { error: err.message, code: err.code, details: err.details };
  }
  return { error: "Internal error", code: "INTERNAL_ERROR" };
}
