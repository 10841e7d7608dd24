import type { Kysely } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";

/** Who holds an address of the site's root namespace, seen by the owner (any status). */
export type AddressOwner =
  | { type: "post" | "collection" | "smart_collection"; id: string }
  | { type: "redirect"; toPath: string; status: 301 | 302 };

/**
 * What holds `address` (no leading slash, no site path prefix): a post, collection or smart
 * collection by its slug or by a custom URL alias, or a stored redirect with its destination as
 * stored (an on-site path with a leading slash, or an absolute URL); undefined when nobody does.
 * Two primary-key reads at most; no visibility rule is applied (callers decide what they may show).
 */
export async function findAddressOwner(
  db: Kysely<Database>,
  address: string,
): Promise<AddressOwner | undefined> {
  // No address holds a NUL (every write refuses text with one, operation.ts), and PostgreSQL cannot
  // compare text holding one: a path that decodes to one (`%00`) is held by nobody.
  if (address.includes("\u0000")) return undefined;
  const owner = await ownerOfAddress.executeTakeFirst(db, { address });
  if (!owner) return undefined;
  if (
    owner.owner_type === "post" ||
    owner.owner_type === "collection" ||
    owner.owner_type === "smart_collection"
  ) {
    return { type: owner.owner_type, id: owner.owner_id };
  }
  if (owner.owner_type !== "custom_url") return undefined;
  const url = await customUrlById.executeTakeFirst(db, { id: owner.owner_id });
  if (!url) return undefined;
  if (url.target_type === "redirect") {
    if (url.to_path === null) return undefined;
    return { type: "redirect", toPath: url.to_path, status: Number(url.redirect_type) === 302 ? 302 : 301 };
  }
  if ((url.target_type === "post" || url.target_type === "collection") && url.target_id !== null) {
    return { type: url.target_type, id: url.target_id };
  }
  return undefined;
}

// Compiled once (db/compiled.ts): every resolved path, and every public page the reference server
// serves by its address, starts with them.
const ownerOfAddress = compiled<{ address: string }>()((db, p) =>
  db.selectFrom("site_addresses").select(["owner_type", "owner_id"]).where("path", "=", p.value("address")),
);

const customUrlById = compiled<{ id: string }>()((db, p) =>
  db
    .selectFrom("custom_urls")
    .select(["target_type", "target_id", "to_path", "redirect_type"])
    .where("id", "=", p.value("id")),
);
