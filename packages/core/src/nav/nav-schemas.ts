import * as z from "zod";
import { directoryUrl } from "../collections/collection-schemas.js";
import { invalidField } from "../errors.js";
import { typeId } from "../shared/type-id.js";

/** Longest nav label, in characters after trimming. @see spec § Limits */
export const maxNavLabelLength = 100;

/** The built-in items. @see spec § Nav item */
export const systemKey = z.enum(["rss", "settings", "collections", "archive"]);
/** One built-in item's key. */
export type SystemKey = z.infer<typeof systemKey>;

/**
 * Input of `navItems.create`. One object rather than a union by `type`, so the input converts to a
 * plain JSON Schema object; {@link navItemDraft} checks which fields each type needs.
 * @see spec § POST /api/nav-items
 */
export const createNavItemInput = z.object({
  type: z.enum(["link", "system", "collection", "smart_collection", "page"]),
  label: z.string().trim().max(maxNavLabelLength).optional(),
  url: directoryUrl.optional(),
  systemKey: systemKey.optional(),
  collectionId: typeId("col").optional(),
  smartCollectionId: typeId("smc").optional(),
  postId: typeId("pst").optional(),
});

/** A new item as its type reads it: the fields that type needs, checked. */
export type NavItemDraft =
  | { type: "link"; label: string; url: string }
  | { type: "system"; systemKey: SystemKey }
  | { type: "collection"; collectionId: string; label: string }
  | { type: "smart_collection"; smartCollectionId: string; label: string }
  | { type: "page"; postId: string; label: string };

/**
 * The fields `type` needs, or a 400 naming the missing one: a link's `label` (1 to 100 after
 * trimming) and `url`; a system item's `systemKey`; a target item's ID, its `label` optional
 * ("" follows the target). Fields of other types are ignored.
 */
export function navItemDraft(input: z.output<typeof createNavItemInput>): NavItemDraft {
  const need = <T>(value: T | undefined, field: string): T => {
    if (value === undefined) throw invalidField(field, `Required for a ${input.type} item`);
    return value;
  };
  switch (input.type) {
    case "link": {
      const label = need(input.label, "label");
      if (label === "") throw invalidField("label", "A link needs a label");
      return { type: "link", label, url: need(input.url, "url") };
    }
    case "system":
      return { type: "system", systemKey: need(input.systemKey, "systemKey") };
    case "collection":
      return {
        type: "collection",
        collectionId: need(input.collectionId, "collectionId"),
        label: input.label ?? "",
      };
    case "smart_collection":
      return {
        type: "smart_collection",
        smartCollectionId: need(input.smartCollectionId, "smartCollectionId"),
        label: input.label ?? "",
      };
    case "page":
      return { type: "page", postId: need(input.postId, "postId"), label: input.label ?? "" };
  }
}

/**
 * Input of `navItems.update`: only `label` and `url`. Which of them an item takes depends on its
 * type (checked against the stored item): a link both, a target item its label, a system item neither.
 */
export const updateNavItemInput = z.object({
  id: typeId("nav"),
  label: z.string().trim().max(maxNavLabelLength).optional(),
  url: directoryUrl.optional(),
});

/** Input of `navItems.move`: the neighbours it goes between; neither moves it to the end. */
export const moveNavItemInput = z.object({
  id: typeId("nav"),
  after: typeId("nav").nullable().optional(),
  before: typeId("nav").nullable().optional(),
});

/** `{ id }` of one nav item. */
export const navItemIdInput = z.object({ id: typeId("nav") });
