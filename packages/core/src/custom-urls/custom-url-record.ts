import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, invalidField, notFound } from "../errors.js";
import type { AliasTargetType } from "./aliases.js";
import { isSelfRedirect, normalizeToPath } from "./custom-url-paths.js";
import type { CustomUrlTargetType } from "./custom-url-schemas.js";
import { type AliasTarget, findAliasTarget, lockAliasTargets } from "./custom-url-targets.js";
import type { CustomUrlRow } from "./custom-url-view.js";

/** What a custom URL will hold once a create or update is applied: exactly one kind's fields. */
export type CustomUrlPlan =
  | { targetType: AliasTargetType; target: AliasTarget; toPath: null; redirectType: null }
  | { targetType: "redirect"; target: null; toPath: string; redirectType: 301 | 302 };

/** The fields of a create or an update that decide what the custom URL points at. */
export interface TargetFields {
  targetType?: CustomUrlTargetType | undefined;
  targetId?: string | null | undefined;
  toPath?: string | null | undefined;
  redirectType?: 301 | 302 | null | undefined;
}

/**
 * Checks the target fields against the final `targetType` and finds the target. An alias needs a
 * `targetId` and takes no `toPath` or `redirectType`; a redirect needs a `toPath`, takes no
 * `targetId`, and its `redirectType` defaults to 301. On an update (`stored` given) a field not
 * sent keeps its stored value when the kind stays the same; switching kind clears the old kind's
 * fields and needs the new kind's required one. Every refusal is a 400 naming the field.
 */
export async function planTarget(
  ctx: Pick<EngineContext, "db">,
  input: TargetFields,
  path: string,
  stored?: CustomUrlRow,
): Promise<CustomUrlPlan> {
  const targetType = input.targetType ?? (stored?.target_type as CustomUrlTargetType);
  const sameKind = stored !== undefined && stored.target_type === targetType;
  if (targetType === "redirect") {
    if (input.targetId != null) throw invalidField("targetId", "A redirect has no target; send toPath");
    let toPath: string;
    if (typeof input.toPath === "string") toPath = normalizeToPath(input.toPath);
    else if (input.toPath === undefined && sameKind && stored.to_path !== null) toPath = stored.to_path;
    else throw invalidField("toPath", "Required for a redirect");
    if (isSelfRedirect(path, toPath)) throw invalidField("toPath", "A redirect to its own path would loop");
    const redirectType =
      input.redirectType ??
      (input.redirectType === undefined && sameKind ? (Number(stored.redirect_type) as 301 | 302) : 301);
    return { targetType, target: null, toPath, redirectType };
  }
  if (input.toPath != null) throw invalidField("toPath", "Only a redirect has a destination");
  if (input.redirectType != null) throw invalidField("redirectType", "Only a redirect has a redirect type");
  let target: AliasTarget;
  if (typeof input.targetId === "string") target = await findAliasTarget(ctx, targetType, input.targetId);
  else if (input.targetId === undefined && sameKind && stored.target_id !== null)
    target = { type: targetType, id: stored.target_id };
  else throw invalidField("targetId", `Required for a ${targetType} alias`);
  return { targetType, target, toPath: null, redirectType: null };
}

/** The alias target a stored custom URL points at, or null for a redirect. */
export function storedTarget(row: CustomUrlRow): AliasTarget | null {
  if (row.target_type === "redirect" || row.target_id === null) return null;
  return { type: row.target_type as AliasTargetType, id: row.target_id };
}

/** One custom URL row by ID. */
export function findCustomUrl(db: Kysely<Database>, id: string): Promise<CustomUrlRow | undefined> {
  return db.selectFrom("custom_urls").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Runs `change` on custom URL `id` with the targets it involves locked: those `plan` names (read
 * from the row as it stands) and the row's own, then the row itself. If the row moved to another
 * target or path between the read and the lock (a concurrent update), it starts again from the
 * fresh row; after three tries it gives up with CONFLICT. Run inside a transaction.
 */
export async function withLockedCustomUrl<T, P>(
  ctx: Pick<EngineContext, "db" | "dialect">,
  id: string,
  plan: (row: CustomUrlRow) => Promise<P & { targets: AliasTarget[] }>,
  change: (row: CustomUrlRow, planned: P, alive: AliasTarget[]) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await findCustomUrl(ctx.db, id);
    if (!row) throw notFound("custom URL", id);
    const planned = await plan(row);
    const own = storedTarget(row);
    const alive = await lockAliasTargets(ctx, own ? [own, ...planned.targets] : planned.targets);
    await ctx.dialect.lockRow(ctx.db, { table: "custom_urls", id });
    const locked = await findCustomUrl(ctx.db, id);
    if (!locked) throw notFound("custom URL", id);
    if (
      locked.path === row.path &&
      locked.target_type === row.target_type &&
      locked.target_id === row.target_id
    ) {
      return change(locked, planned, alive);
    }
  }
  throw conflict(`Custom URL ${id} is being changed by another request; try again`);
}
