import { placeAt, placeOf, writeSpread } from "../collections/directory.js";
import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { navItemOutput } from "./nav-output.js";
import { loadNavRows, lockNav, lockNavItem, resolveNavRows } from "./nav-rows.js";
import { moveNavItemInput } from "./nav-schemas.js";
import { type NavItem, type StoredNavItem, toNavItem } from "./nav-view.js";

/**
 * Moves an item between two neighbours: after `after` (and before the item that follows it), before
 * `before` (and after the one that precedes it), or after `after` when both are given (`after` must
 * come before `before`; with items between them, it goes right after `after`, still before
 * `before`); neither, or both null, moves it to the end. A neighbour is another existing item
 * (400 otherwise). The nav lock is held while the new key is computed; a key grown too long
 * respreads every item's key (`placeAt`).
 * @see spec § PUT /api/nav-items/:id/move, docs/navigation.md § Order
 */
export const moveNavItem = defineOperation({
  id: "navItems.move",
  access: "owner",
  description: "Moves a navigation item after or before another; with neither, to the end.",
  hints: { idempotent: true },
  input: moveNavItemInput,
  output: navItemOutput,
  run: async (ctx, input): Promise<NavItem> => {
    // The answer is read in the transaction: after its commit a concurrent delete could take the row.
    const [item] = await ctx.db.transaction().execute(async (trx) => {
      await lockNav({ db: trx, dialect: ctx.dialect });
      const moving = await lockNavItem({ db: trx, dialect: ctx.dialect }, input.id);
      const others = (await loadNavRows(trx)).filter((row) => row.id !== moving.id);
      const at = placeFor(others, input.after ?? null, input.before ?? null);
      const { position, spread } = placeAt(others, moving.id, at);
      if (spread) await writeSpread(trx, "nav_items", spread, moving.id);
      await trx
        .updateTable("nav_items")
        .set({ position, updated_at: ctx.clock.now() })
        .where("id", "=", moving.id)
        .execute();
      return resolveNavRows(trx, [input.id]);
    });
    if (!item) throw new Error(`nav item ${input.id} vanished inside its move`);
    return toNavItem(ctx.settings, item.row, item.target);
  },
});

/** The index among `others` (the other items in order) that `after`/`before` name (`placeOf`). */
function placeFor(others: StoredNavItem[], after: string | null, before: string | null): number {
  const indexOf = (id: string | null, field: "after" | "before") => {
    if (id === null) return undefined;
    const index = others.findIndex((row) => row.id === id);
    if (index < 0) throw invalidField(field, `No other nav item ${id}`);
    return index;
  };
  return placeOf(indexOf(after, "after"), indexOf(before, "before"), others.length, () =>
    invalidField("before", "`after` must come before `before`"),
  );
}
