import * as z from "zod";
import type { Caller } from "../caller.js";
import type { EngineContext } from "../deps.js";
import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { constantTimeEqual, hashToken } from "./token-hash.js";
import { tokenCreatedOutput, tokenListOutput } from "./token-output.js";

const tokenPrefix = "quire_";
const tokenIdPattern = /^tok_[0-9a-z]{26}$/;

/**
 * Creates an API token. The secret is returned once, here; only its SHA-256 is stored.
 * Token format: `quire_<token id>.<secret>`, so a check is one primary-key read.
 */
export const createToken = defineOperation({
  id: "tokens.create",
  access: "internal",
  description: "Creates an API token and returns its secret, once.",
  input: z.object({ name: z.string().trim().min(1).max(100).default("API token") }),
  output: tokenCreatedOutput,
  run: async (ctx, input) => {
    const id = ctx.ids.generate("tok");
    const token = `${tokenPrefix}${id}.${ctx.ids.secret()}`;
    const createdAt = ctx.clock.now();
    await ctx.db
      .insertInto("api_tokens")
      .values({ id, name: input.name, token_hash: await hashToken(token), created_at: createdAt })
      .execute();
    return { id, name: input.name, token, createdAt };
  },
});

/** Lists API tokens without their secrets. */
export const listTokens = defineOperation({
  id: "tokens.list",
  access: "internal",
  description: "Lists API tokens (names and use times, never secrets).",
  hints: { readOnly: true },
  input: z.object({}),
  output: tokenListOutput,
  run: async (ctx) => {
    const rows = await ctx.db
      .selectFrom("api_tokens")
      .select(["id", "name", "created_at", "last_used_at"])
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return {
      tokens: rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
      })),
    };
  },
});

/** Revokes (deletes) an API token; it stops working at once. */
export const revokeToken = defineOperation({
  id: "tokens.revoke",
  access: "internal",
  description: "Revokes an API token; it stops working at once.",
  hints: { destructive: true, idempotent: true },
  input: z.object({ id: z.string().regex(tokenIdPattern, "Expected a tok_ ID") }),
  output: successOutput,
  run: async (ctx, input) => {
    const result = await ctx.db.deleteFrom("api_tokens").where("id", "=", input.id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound("token", input.id);
    return { success: true as const };
  },
});

/** The caller a Bearer token stands for, or null when it is not a live API token. */
export async function verifyApiToken(ctx: EngineContext, token: string): Promise<Caller | null> {
  const match = /^quire_(tok_[0-9a-z]{26})\.[A-Za-z0-9_-]+$/.exec(token);
  if (!match) return null;
  const id = match[1] as string;
  const row = await ctx.db
    .selectFrom("api_tokens")
    .select(["id", "token_hash", "last_used_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row || !constantTimeEqual(row.token_hash, await hashToken(token))) return null;
  const now = ctx.clock.now();
  // Record use at most once a minute, so reads do not each cost a write.
  if (row.last_used_at === null || now - row.last_used_at >= 60) {
    await ctx.db.updateTable("api_tokens").set({ last_used_at: now }).where("id", "=", id).execute();
  }
  return { role: "owner", tokenId: id };
}

/** The token operations. */
export const tokenOperations = [createToken, listTokens, revokeToken] as const;
