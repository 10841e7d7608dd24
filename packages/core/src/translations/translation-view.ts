/** The post columns a translation entry is made of. */
export interface EntryRow {
  id: string;
  slug: string;
  title: string | null;
  format: string;
  display_title: string;
  language: string | null;
}

/** A version entry: another language's version of a Thread. @see spec § Translation entries */
export interface VersionEntry {
  id: string;
  slug: string;
  title: string | null;
  label: string;
  language: string | null;
}

/** A candidate entry: a Thread root that could become a version. @see spec § Translation entries */
export interface CandidateEntry {
  id: string;
  slug: string;
  label: string;
  language: string | null;
}

/** The columns to select for an entry. */
export const entryColumns = ["id", "slug", "title", "format", "display_title", "language"] as const;

/** The display title, except that an untitled note is labelled by its slug. */
function labelOf(row: EntryRow): string {
  if (row.format === "note" && (row.title === null || row.title.trim() === "")) return row.slug;
  return row.display_title;
}

/** A row as a version entry. */
export function toVersionEntry(row: EntryRow): VersionEntry {
  return { id: row.id, slug: row.slug, title: row.title, label: labelOf(row), language: row.language };
}

/** A row as a candidate entry. */
export function toCandidateEntry(row: EntryRow): CandidateEntry {
  return { id: row.id, slug: row.slug, label: labelOf(row), language: row.language };
}
