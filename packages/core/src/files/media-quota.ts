import { sql } from "kysely";
import type { EngineContext, MediaQuotaRequest } from "../deps.js";
import { EngineError } from "../errors.js";

/**
 * Asks the operator's media quota hook whether an upload of `bytes` may be kept; 409
 * MEDIA_QUOTA_EXCEEDED when it says no. Without a hook every upload fits. Callers check before
 * they store bytes, or delete what they stored when the check fails. @see docs/hosting.md
 */
export async function checkMediaQuota(
  ctx: Pick<EngineContext, "db" | "hooks">,
  input: { bytes: number | null; stage: MediaQuotaRequest["stage"] },
): Promise<void> {
  const hook = ctx.hooks.mediaQuota;
  if (!hook) return;
  const allowed = await hook({
    bytes: input.bytes,
    stage: input.stage,
    storedBytes: () => storedMediaBytes(ctx),
  });
  if (allowed) return;
  throw new EngineError(
    "MEDIA_QUOTA_EXCEEDED",
    input.bytes === null
      ? "The site's media quota is used up"
      : `The site's media quota has no room for ${input.bytes} more bytes`,
    input.bytes === null ? undefined : { bytes: input.bytes },
  );
}

/** The bytes the site's media records hold: their file sizes summed. */
export async function storedMediaBytes(ctx: Pick<EngineContext, "db">): Promise<number> {
  const row = await ctx.db
    .selectFrom("media")
    .select(sql<string | number | null>`sum(size)`.as("total"))
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}
