import type { Kysely, Updateable } from "kysely";
import type { Database, DirectoryItemsTable } from "../db/schema.js";
import { invalidField, notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { placedDirectoryItemOutput } from "./collection-output.js";
import {
  createDirectoryItemInput,
  directoryItemIdInput,
  moveDirectoryItemInput,
  updateDirectoryItemInput,
} from "./collection-schemas.js";
import { toDirectoryItemView } from "./collection-view.js";
import {
  dividerLabel,
  endPosition,
  linkLabel,
  loadDirectory,
  lockDirectory,
  placeAt,
  placeOf,
  type StoredDirectoryItem,
  writeSpread,
} from "./directory.js";

async function readItem(db: Kysely<Database>, id: string): Promise<StoredDirectoryItem> {
  const row = await db.selectFrom("directory_items").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound("directory item", id);
  return row;
}

/**
 * Appends a divider (`label` optional, blank stored as null) or a link (`label` 1 to 60 after
 * trimming; `url` a `/…` path or an absolute http:, https: or mailto: URL; `description` Markdown
 * stored as sent). Collections and smart collections are placed by moving them, never created here.
 * @see spec § POST /api/collections/directory-items
 */
export const createDirectoryItem = defineOperation({
  id: "directoryItems.create",
  access: "owner",
  description: "Appends a divider or a link to the collection directory.",
  input: createDirectoryItemInput,
  output: placedDirectoryItemOutput,
  run: async (ctx, input) => {
    const now = ctx.clock.now();
    const id = ctx.ids.generate("cdi");
    const label = input.type === "link" ? linkLabel(input.label) : dividerLabel(input.label);
    if (input.type === "link" && input.url === undefined) throw invalidField("url", "A link needs a url");
    if (input.type === "divider" && input.url !== undefined)
      throw invalidField("url", "Only a link has a url");
    if (input.type === "divider" && input.description !== undefined)
      throw invalidField("description", "Only a link has a description");
    // Each write reads its answer before the commit, after which another writer could delete it.
    const created = await ctx.db.transaction().execute(async (trx) => {
      await lockDirectory({ db: trx, dialect: ctx.dialect });
      await trx
        .insertInto("directory_items")
        .values({
          id,
          type: input.type,
          collection_id: null,
          smart_collection_id: null,
          label,
          url: input.type === "link" ? (input.url ?? null) : null,
          description: input.type === "link" ? (input.description ?? null) : null,
          position: await endPosition(trx),
          created_at: now,
          updated_at: now,
        })
        .execute();
      return readItem(trx, id);
    });
    return toDirectoryItemView(created);
  },
});

/**
 * Partially updates a divider or a link: `label` (a link's cannot be null or blank), and for a
 * link `url` and `description`. A collection's or smart collection's item takes none (400): it
 * shows its target's own title. @see spec § PUT /api/collections/directory-items/:id
 */
export const updateDirectoryItem = defineOperation({
  id: "directoryItems.update",
  access: "owner",
  description: "Updates a directory divider's label, or a link's label, url and description.",
  hints: { idempotent: true },
  input: updateDirectoryItemInput,
  output: placedDirectoryItemOutput,
  run: async (ctx, input) => {
    const updated = await ctx.db.transaction().execute(async (trx) => {
      await lockDirectory({ db: trx, dialect: ctx.dialect });
      const row = await readItem(trx, input.id);
      const changes: Updateable<DirectoryItemsTable> = { updated_at: ctx.clock.now() };
      if (row.type === "divider") {
        if (input.url !== undefined) throw invalidField("url", "Only a link has a url");
        if (input.description !== undefined)
          throw invalidField("description", "Only a link has a description");
        if (input.label !== undefined) changes.label = dividerLabel(input.label);
      } else if (row.type === "link") {
        if (input.label !== undefined) changes.label = linkLabel(input.label);
        if (input.url !== undefined) changes.url = input.url;
        if (input.description !== undefined) changes.description = input.description;
      } else {
        const sent = (["label", "url", "description"] as const).find((field) => input[field] !== undefined);
        if (sent)
          throw invalidField(sent, `A ${row.type} item shows its target; it has no ${sent} of its own`);
      }
      await trx.updateTable("directory_items").set(changes).where("id", "=", row.id).execute();
      return readItem(trx, row.id);
    });
    return toDirectoryItemView(updated);
  },
});

/**
 * Moves a directory entry between `after` (the item it should follow) and `before` (the item it
 * should precede): `before` alone places it right before that item (the start when that is the
 * first), `after` alone right after (the end when that is the last), neither appends. Only the
 * moved item's key changes (a fresh fractional key between its new neighbours), unless that key
 * would be too long: then every item's key is spread afresh (`placeAt`). `id` may also be
 * a collection or smart collection ID: one without an item gets one at that place. An unknown item
 * to move is 404; an unknown or self `after`/`before`, or an `after` not before `before`, is 400.
 * @see spec § PUT /api/collections/directory-items/:id/move
 */
export const moveDirectoryItem = defineOperation({
  id: "directoryItems.move",
  access: "owner",
  description:
    "Moves a directory item (or places a collection or smart collection) after or before another item.",
  hints: { idempotent: true },
  input: moveDirectoryItemInput,
  output: placedDirectoryItemOutput,
  run: async (ctx, input) => {
    const now = ctx.clock.now();
    const movedItem = await ctx.db.transaction().execute(async (trx) => {
      await lockDirectory({ db: trx, dialect: ctx.dialect });
      const items = await loadDirectory(trx);
      const moved = await findMovable(trx, items, input.id, () => ctx.ids.generate("cdi"));
      const others = items.filter((item) => item.id !== moved.id);
      const anchor = (field: "after" | "before") => {
        const id = input[field];
        if (id === undefined || id === null) return undefined;
        const index = others.findIndex((item) => item.id === id);
        if (index < 0) {
          const message = id === moved.id ? "An item cannot move next to itself" : `No directory item ${id}`;
          throw invalidField(field, message);
        }
        return index;
      };
      const at = placeOf(anchor("after"), anchor("before"), others.length, () =>
        invalidField("after", "`after` must come before `before`"),
      );
      const { position, spread } = placeAt(others, moved.id, at);
      if (spread) await writeSpread(trx, "directory_items", spread, moved.id);
      if (moved.existing) {
        await trx
          .updateTable("directory_items")
          .set({ position, updated_at: now })
          .where("id", "=", moved.id)
          .execute();
      } else {
        await trx
          .insertInto("directory_items")
          .values({
            id: moved.id,
            type: moved.type,
            collection_id: moved.type === "collection" ? input.id : null,
            smart_collection_id: moved.type === "smart_collection" ? input.id : null,
            label: null,
            url: null,
            description: null,
            position,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      return readItem(trx, moved.id);
    });
    return toDirectoryItemView(movedItem);
  },
});

/** The entry to move: an item by ID, or the item (existing or new) of a collection / smart collection. */
async function findMovable(
  db: Kysely<Database>,
  items: StoredDirectoryItem[],
  id: string,
  newId: () => string,
): Promise<{ id: string; existing: boolean; type: string }> {
  if (id.startsWith("cdi_")) {
    const item = items.find((candidate) => candidate.id === id);
    if (!item) throw notFound("directory item", id);
    return { id, existing: true, type: item.type };
  }
  const type = id.startsWith("col_") ? "collection" : "smart_collection";
  const item = items.find((candidate) =>
    type === "collection" ? candidate.collection_id === id : candidate.smart_collection_id === id,
  );
  if (item) return { id: item.id, existing: true, type };
  const table = type === "collection" ? "collections" : "smart_collections";
  const target = await db.selectFrom(table).select("id").where("id", "=", id).executeTakeFirst();
  if (!target) throw notFound(type === "collection" ? "collection" : "smart collection", id);
  return { id: newId(), existing: false, type };
}

/**
 * Deletes a directory item. Deleting a collection's or smart collection's item leaves the target
 * unplaced: it is listed at the end of the directory until moved again.
 * @see spec § DELETE /api/collections/directory-items/:id
 */
export const deleteDirectoryItem = defineOperation({
  id: "directoryItems.delete",
  access: "owner",
  description: "Deletes a directory item (a collection's item only unplaces the collection).",
  hints: { destructive: true, idempotent: true },
  input: directoryItemIdInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db.transaction().execute(async (trx) => {
      await lockDirectory({ db: trx, dialect: ctx.dialect });
      const result = await trx.deleteFrom("directory_items").where("id", "=", input.id).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw notFound("directory item", input.id);
    });
    return { success: true as const };
  },
});
