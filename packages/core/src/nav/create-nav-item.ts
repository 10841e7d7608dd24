import { positionBetween } from "../collections/directory.js";
import { defineOperation } from "../operation.js";
import { navItemOutput } from "./nav-output.js";
import { loadNavRows, lockNav, resolveNavRows } from "./nav-rows.js";
import { createNavItemInput, type NavItemDraft, navItemDraft } from "./nav-schemas.js";
import { checkNavTarget } from "./nav-targets.js";
import type { NavItem, StoredNavItem } from "./nav-view.js";
import { toNavItem } from "./nav-view.js";
import { systemItems } from "./system-items.js";

/**
 * Adds an item at the end of the navigation. A built-in item gets its label and address; a target
 * item with no label stores "" and shows its target's title. @see spec § POST /api/nav-items
 */
export const createNavItem = defineOperation({
  id: "navItems.create",
  access: "owner",
  description:
    "Adds a header navigation item: a link, a built-in page, a collection, a smart collection or a page.",
  input: createNavItemInput,
  output: navItemOutput,
  run: async (ctx, raw): Promise<NavItem> => {
    const input = navItemDraft(raw);
    const id = ctx.ids.generate("nav");
    const now = ctx.clock.now();
    const [item] = await ctx.db.transaction().execute(async (trx) => {
      await lockNav({ db: trx, dialect: ctx.dialect });
      await checkNavTarget(trx, input);
      const last = (await loadNavRows(trx)).at(-1);
      await trx
        .insertInto("nav_items")
        .values({
          id,
          ...columnsOf(input),
          position: positionBetween(last?.position ?? null, null),
          created_at: now,
          updated_at: now,
        })
        .execute();
      return resolveNavRows(trx, [id]);
    });
    if (!item) throw new Error(`nav item ${id} vanished inside its insert`);
    return toNavItem(ctx.settings, item.row, item.target);
  },
});

type Columns = Pick<
  StoredNavItem,
  "type" | "system_key" | "collection_id" | "smart_collection_id" | "post_id" | "label" | "url"
>;

function columnsOf(input: NavItemDraft): Columns {
  const none = { system_key: null, collection_id: null, smart_collection_id: null, post_id: null, url: null };
  switch (input.type) {
    case "link":
      return { ...none, type: input.type, label: input.label, url: input.url };
    case "system":
      return {
        ...none,
        type: input.type,
        system_key: input.systemKey,
        label: systemItems[input.systemKey].label,
      };
    case "collection":
      return { ...none, type: input.type, collection_id: input.collectionId, label: input.label };
    case "smart_collection":
      return {
        ...none,
        type: input.type,
        smart_collection_id: input.smartCollectionId,
        label: input.label,
      };
    case "page":
      return { ...none, type: input.type, post_id: input.postId, label: input.label };
  }
}
