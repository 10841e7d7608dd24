import type { ErrorCode } from "@quire/core";

/** The HTTP status of each error code. @see spec § Errors */
export const statusOf = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  MEDIA_QUOTA_EXCEEDED: 409,
  LANGUAGE_IN_USE: 409,
  CONFIGURATION_ERROR: 500,
  EXTERNAL_SERVICE_ERROR: 500,
  INTERNAL_ERROR: 500,
  SITE_UNAVAILABLE: 503,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
} satisfies Record<ErrorCode, number>;
