import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { conflict, invalidField } from "../errors.js";
import { findPost } from "../posts/post-query.js";
import type { NavItemDraft } from "./nav-schemas.js";

/**
 * Checks what a new item points at (inside the create's transaction, the nav lock held): the
 * collection or smart collection must exist, a page must be a published, non-private, titled note
 * (400 naming the field otherwise), and a built-in item may exist once (409).
 * @see spec § POST /api/nav-items
 */
export async function checkNavTarget(db: Kysely<Database>, input: NavItemDraft): Promise<void> {
  switch (input.type) {
    case "link":
      return;
    case "system": {
      const existing = await db
        .selectFrom("nav_items")
        .select("id")
        .where("system_key", "=", input.systemKey)
        .executeTakeFirst();
      if (existing)
        throw conflict(`The ${input.systemKey} item is already in the navigation (${existing.id})`);
      return;
    }
    case "collection": {
      const found = await db
        .selectFrom("collections")
        .select("id")
        .where("id", "=", input.collectionId)
        .executeTakeFirst();
      if (!found) throw invalidField("collectionId", `Unknown collection ${input.collectionId}`);
      return;
    }
    case "smart_collection": {
      const found = await db
        .selectFrom("smart_collections")
        .select("id")
        .where("id", "=", input.smartCollectionId)
        .executeTakeFirst();
      if (!found)
        throw invalidField("smartCollectionId", `Unknown smart collection ${input.smartCollectionId}`);
      return;
    }
    case "page": {
      const post = await findPost(db, input.postId);
      if (!post) throw invalidField("postId", `Unknown post ${input.postId}`);
      const readable = post.status === "published" && post.root_visibility !== "private";
      if (!readable) throw invalidField("postId", "A page must be published and not private");
      if (post.format !== "note" || !post.title?.trim())
        throw invalidField("postId", "A page must be a titled note");
      return;
    }
  }
}
