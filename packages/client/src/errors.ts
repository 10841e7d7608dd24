/**
 * An error answer of the Quire API, `{ error, code, details? }`, with its HTTP status. Branch on
 * `code` (`VALIDATION_ERROR`, `NOT_FOUND`, `CONFLICT`, …); the wording of `message` and the shape of
 * `details` may change between releases, except a validation error's `details.formErrors` and
 * `details.fieldErrors`.
 */
export class QuireError extends Error {
  override readonly name = "QuireError";
  constructor(
    /** The HTTP status of the answer. */
    readonly status: number,
    /** The error code from the answer's `code`, or `HTTP_<status>` when the answer had none. */
    readonly code: string,
    message: string,
    /** The answer's `details`, when it had some. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** The messages for each field of a `VALIDATION_ERROR`, or an empty object. */
  get fieldErrors(): Record<string, string[]> {
    const fields = this.details?.fieldErrors;
    return typeof fields === "object" && fields !== null ? (fields as Record<string, string[]>) : {};
  }
}

/** True for a {@link QuireError}, optionally with one of the given codes. */
export function isQuireError(value: unknown, ...codes: string[]): value is QuireError {
  return value instanceof QuireError && (codes.length === 0 || codes.includes(value.code));
}

/** The QuireError of a non-2xx response, from its `{ error, code, details? }` body when it has one. */
export async function errorFromResponse(response: Response): Promise<QuireError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === "object" && body !== null) {
    const { error, code, details } = body as { error?: unknown; code?: unknown; details?: unknown };
    if (typeof code === "string") {
      return new QuireError(
        response.status,
        code,
        typeof error === "string" ? error : `${response.status} ${response.statusText}`,
        typeof details === "object" && details !== null ? (details as Record<string, unknown>) : undefined,
      );
    }
  }
  const snippet = text.trim().slice(0, 200);
  return new QuireError(
    response.status,
    `HTTP_${response.status}`,
    `${response.status} ${response.statusText}${snippet ? `: ${snippet}` : ""}`,
  );
}
