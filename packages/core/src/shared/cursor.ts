import { invalidField } from "../errors.js";
import { fromBase64Url, toBase64Url } from "./ids.js";
import { looksLikeTypeId } from "./type-id.js";

/** A position in a list: the list's order name and the sort key values of the last item returned. */
export interface CursorPosition {
  order: string;
  keys: (string | number | null)[];
}

/**
 * Encodes a position as an opaque string (base64url of a small JSON).
 * @see spec § Pagination
 */
export function encodeCursor(position: CursorPosition): string {
  const json = JSON.stringify({ o: position.order, k: position.keys });
  return toBase64Url(new TextEncoder().encode(json));
}

/**
 * Decodes a cursor for a list in `order` with `keyCount` sort keys. Anything unreadable, a
 * cursor from another order, or a bare post/media ID is a 400 on the `cursor` field.
 */
export function decodeCursor(cursor: string, order: string, keyCount: number): CursorPosition["keys"] {
  if (looksLikeTypeId(cursor)) throw invalidField("cursor", "An ID is not a cursor; pass nextCursor back");
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64Url(cursor)));
  } catch {
    throw invalidField("cursor", "Unreadable cursor");
  }
  if (!isCursorJson(parsed) || parsed.k.length !== keyCount) {
    throw invalidField("cursor", "Unreadable cursor");
  }
  if (parsed.o !== order) throw invalidField("cursor", "Cursor belongs to a list in a different order");
  return parsed.k;
}

function isCursorJson(value: unknown): value is { o: string; k: (string | number | null)[] } {
  if (typeof value !== "object" || value === null) return false;
  const { o, k } = value as { o?: unknown; k?: unknown };
  return (
    typeof o === "string" &&
    Array.isArray(k) &&
    k.every(
      (key) => key === null || typeof key === "string" || (typeof key === "number" && Number.isFinite(key)),
    )
  );
}
