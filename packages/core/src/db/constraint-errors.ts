/**
 * True when a driver error is a unique-constraint violation. Knows each supported driver's error
 * shape (better-sqlite3's `code`, node-postgres's SQLSTATE), never the message text.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
