import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine } from "../../test/support.js";
import type { Engine } from "../engine.js";

let engine: Engine;

beforeEach(async () => {
  ({ engine } = await openTestEngine());
});

describe("API tokens", () => {
  it("are shown once, stored hashed, verified and revoked", async () => {
    const created = await engine.tokens.create({ name: "ci" });
    expect(created.token).toMatch(/^quire_tok_[0-9a-z]{26}\.\S+$/);
    const stored = await engine.context.db.selectFrom("api_tokens").selectAll().executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toContain(created.token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await engine.verifyApiToken(created.token)).toEqual({ role: "owner", tokenId: created.id });
    expect(await engine.verifyApiToken(`${created.token}x`)).toBeNull();
    expect(await engine.verifyApiToken("quire_nope")).toBeNull();
    const { tokens } = await engine.tokens.list({});
    expect(tokens).toEqual([
      { id: created.id, name: "ci", createdAt: created.createdAt, lastUsedAt: created.createdAt },
    ]);
    expect(tokens[0]).not.toHaveProperty("token");
    expect(await engine.tokens.revoke({ id: created.id })).toEqual({ success: true });
    expect(await engine.verifyApiToken(created.token)).toBeNull();
    expect(await engine.tokens.revoke({ id: created.id }).catch((e) => e.code)).toBe("NOT_FOUND");
  });
});
