import { generateKeyBetween, generateNKeysBetween } from "fractional-indexing";
import { type Kysely, type Selectable, sql } from "kysely";
import type { Dialect } from "../db/dialect.js";
import type { Database, DirectoryItemsTable } from "../db/schema.js";
import { invalidField } from "../errors.js";

/** A stored directory item. */
export type StoredDirectoryItem = Selectable<DirectoryItemsTable>;

/**
 * Takes the directory's one lock row for the rest of the transaction: every directory write holds
 * it before reading positions, so two writers never compute the same key (PostgreSQL reads the
 * row FOR UPDATE; SQLite's write transaction already holds the file's write lock).
 */
export async function lockDirectory(ctx: { db: Kysely<Database>; dialect: Dialect }): Promise<void> {
  await ctx.dialect.lockRow(ctx.db, { table: "directory_lock", id: "directory" });
}

/** Byte-order comparison of fractional keys (the database's collation plays no part). */
export function comparePositions(a: { position: string; id: string }, b: { position: string; id: string }) {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Every directory item in directory order (the directory is small and returned whole). */
export async function loadDirectory(db: Kysely<Database>): Promise<StoredDirectoryItem[]> {
  const rows = await db.selectFrom("directory_items").selectAll().execute();
  return rows.sort(comparePositions);
}

/** A key after every item (the directory lock held). */
export async function endPosition(db: Kysely<Database>): Promise<string> {
  const last = await db
    .selectFrom("directory_items")
    .select("position")
    .execute()
    .then((rows) =>
      rows
        .map((row) => row.position)
        .sort()
        .at(-1),
    );
  return generateKeyBetween(last ?? null, null);
}

/** A fresh key strictly between two keys (either end may be open). */
export function positionBetween(before: string | null, after: string | null): string {
  return generateKeyBetween(before, after);
}

/**
 * Longest key a move writes. A key between two neighbours is about one character longer for every
 * six moves into the same gap (fractional-indexing halves the gap each time), so a client moving
 * items back and forth grew keys without end: 3,336 characters after 20,000 moves into one gap,
 * carried by every answer and list, and compared on every read; PostgreSQL indexes a key (nav_items'
 * unique index) only up to about 2,700 bytes after compression, which these keys, mostly one
 * repeated digit, reached late but less regular ones would reach sooner.
 */
export const maxPositionLength = 32;

/**
 * The index among the other items (`length` of them, in order) that a move's neighbours name, by
 * their indexes when sent: right after `after`, else right before `before`, else the end. With
 * both, `after` must come first (`outOfOrder` throws otherwise), and the item goes right after
 * it, still before `before`: items may lie between the two when the list changed since the client
 * read it, and the key between those two would be one of theirs (a 500 from nav_items' unique
 * index, a shared key in the directory, before 2026-11-29).
 */
export function placeOf(
  after: number | undefined,
  before: number | undefined,
  length: number,
  outOfOrder: () => Error,
): number {
  if (after !== undefined && before !== undefined && after >= before) throw outOfOrder();
  if (after !== undefined) return after + 1;
  return before ?? length;
}

/**
 * Where a moved item goes in an ordered list: at index `at` of `others` (the other items in order;
 * `others.length` is the end), with `position`, a fresh key between its new neighbours, when that
 * fits in {@link maxPositionLength}. Otherwise the whole list, the item at that place, is given
 * fresh, evenly spread keys (`spread`, by ID, the moved item's included), a few characters each;
 * so too when the neighbours' keys are not in order (two directory items could share one key
 * before 2026-11-29, when a move between two items that were not neighbours took a third one's
 * key; the directory has no unique index on it). Hold the list's lock.
 * @see docs/navigation.md § Order
 */
export function placeAt(
  others: readonly { id: string; position: string }[],
  movedId: string,
  at: number,
): { position: string; spread?: Map<string, string> } {
  const low = others[at - 1]?.position ?? null;
  const high = others[at]?.position ?? null;
  if (low === null || high === null || low < high) {
    const position = positionBetween(low, high);
    if (position.length <= maxPositionLength) return { position };
  }
  const order = [
    ...others.slice(0, at).map((item) => item.id),
    movedId,
    ...others.slice(at).map((item) => item.id),
  ];
  const keys = generateNKeysBetween(null, null, order.length);
  const spread = new Map(order.map((id, index) => [id, keys[index] as string]));
  return { position: spread.get(movedId) as string, spread };
}

/**
 * Writes the spread keys of {@link placeAt} to every item but `movedId` (its caller writes
 * that one, after this): first a temporary key of its own to each, the moved item's included (`~`
 * and the ID, after every real key), then the new one, so no two rows hold one key at any moment
 * (nav_items' index is unique).
 */
export async function writeSpread(
  db: Kysely<Database>,
  table: "nav_items" | "directory_items",
  spread: Map<string, string>,
  movedId: string,
): Promise<void> {
  // The moved item too steps aside: its old key may be one of the new ones.
  for (const id of spread.keys()) {
    await sql`update ${sql.table(table)} set position = ${`~${id}`} where id = ${id}`.execute(db);
  }
  for (const [id, position] of spread) {
    if (id === movedId) continue;
    await sql`update ${sql.table(table)} set position = ${position} where id = ${id}`.execute(db);
  }
}

/** A divider's label (trimmed and at most 60 characters, by the input schema): blank is stored as null. */
export function dividerLabel(label: string | null | undefined): string | null {
  return label === undefined || label === null || label === "" ? null : label;
}

/** A link's label (trimmed and at most 60 characters, by the input schema): blank is refused. */
export function linkLabel(label: string | null | undefined): string {
  if (label === undefined || label === null || label === "")
    throw invalidField("label", "A link needs a label");
  return label;
}

/** Appends the directory item of a new collection (the directory lock taken here). */
export async function placeCollection(
  ctx: { db: Kysely<Database>; dialect: Dialect; ids: { generate(prefix: "cdi"): string } },
  input: { collectionId: string; now: number },
): Promise<void> {
  await lockDirectory(ctx);
  await ctx.db
    .insertInto("directory_items")
    .values({
      id: ctx.ids.generate("cdi"),
      type: "collection",
      collection_id: input.collectionId,
      smart_collection_id: null,
      label: null,
      url: null,
      description: null,
      position: await endPosition(ctx.db),
      created_at: input.now,
      updated_at: input.now,
    })
    .execute();
}
