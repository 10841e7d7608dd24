import { describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import { hashPassword, verifyPassword } from "./password-hash.js";

describe("owner password", () => {
  it("is stored as a salted scrypt hash in PHC form, never as the password", async () => {
    const { engine } = await openTestEngine();
    expect(await engine.owner.setPassword({ password: "correct horse" })).toEqual({
      success: true,
      revokedSessions: 0,
    });
    const row = await engine.context.db.selectFrom("owner_credentials").selectAll().executeTakeFirstOrThrow();
    expect(row.id).toBe("owner");
    expect(row.password_hash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row.password_hash).not.toContain("correct horse");
  });

  it("verifies only the same password; two hashes of one password differ (salt)", async () => {
    const a = await hashPassword("pässword-1");
    const b = await hashPassword("pässword-1");
    expect(a).not.toBe(b);
    expect(await verifyPassword("pässword-1", a)).toBe(true);
    // NFC and NFD spellings of one text are one password.
    expect(await verifyPassword("pa\u0308ssword-1", a)).toBe(true);
    expect(await verifyPassword("pässword-2", a)).toBe(false);
    expect(await verifyPassword("pässword-1", "not a hash")).toBe(false);
    expect(await verifyPassword("pässword-1", a.replace("ln=15", "ln=99"))).toBe(false);
  });

  it("refuses a short or overlong password with 400 naming the field, writing nothing", async () => {
    const { engine } = await openTestEngine();
    for (const password of ["short", "x".repeat(1025)]) {
      const err = await engine.owner.setPassword({ password }).catch((e) => e);
      expect(err.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(err.details.fieldErrors)).toEqual(["password"]);
    }
    expect(await engine.context.db.selectFrom("owner_credentials").selectAll().execute()).toEqual([]);
  });
});

describe("sessions", () => {
  it("open with the right password, verify by secret, and end on sign-out", async () => {
    const { engine, clock } = await openTestEngine();
    await engine.owner.setPassword({ password: "correct horse" });
    const session = await engine.sessions.signIn({ password: "correct horse" });
    expect(session.token).toMatch(/^qs_/);
    expect(session.expiresAt).toBe(clock.now() + 30 * 24 * 3600);
    const rows = await engine.context.db.selectFrom("sessions").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.token_hash).not.toContain(session.token.slice(3));
    expect(await engine.verifySession(session.token)).toEqual({ role: "owner" });
    expect(await engine.verifySession(`${session.token}x`)).toBeNull();
    expect(await engine.verifySession("garbage")).toBeNull();
    expect(await engine.sessions.signOut({ token: session.token })).toEqual({ success: true });
    expect(await engine.verifySession(session.token)).toBeNull();
    // Signing out again, or an unknown secret, is not an error.
    expect(await engine.sessions.signOut({ token: session.token })).toEqual({ success: true });
    expect(await engine.sessions.signOut({ token: "nonsense" })).toEqual({ success: true });
  });

  it("refuse a wrong password, or any before a password is set, with 401 and no row", async () => {
    const { engine } = await openTestEngine();
    expect(await codeOf(engine.sessions.signIn({ password: "anything" }))).toBe("UNAUTHORIZED");
    await engine.owner.setPassword({ password: "correct horse" });
    expect(await codeOf(engine.sessions.signIn({ password: "correct horsE" }))).toBe("UNAUTHORIZED");
    expect(await codeOf(engine.sessions.signIn({ password: "" }))).toBe("VALIDATION_ERROR");
    expect(await engine.context.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
  });

  it("expire at their end, and expired rows are deleted by the next sign-in", async () => {
    const { engine, clock } = await openTestEngine();
    await engine.owner.setPassword({ password: "correct horse" });
    const short = await engine.sessions.signIn({ password: "correct horse", maxAgeSeconds: 60 });
    clock.advance(59);
    expect(await engine.verifySession(short.token)).toEqual({ role: "owner" });
    clock.advance(1);
    expect(await engine.verifySession(short.token)).toBeNull();
    const next = await engine.sessions.signIn({ password: "correct horse" });
    const rows = await engine.context.db.selectFrom("sessions").select("expires_at").execute();
    expect(rows).toEqual([{ expires_at: next.expiresAt }]);
  });

  it("all end when the password changes or on revokeAll", async () => {
    const { engine } = await openTestEngine();
    await engine.owner.setPassword({ password: "correct horse" });
    const a = await engine.sessions.signIn({ password: "correct horse" });
    const b = await engine.sessions.signIn({ password: "correct horse" });
    expect(await engine.owner.setPassword({ password: "battery staple" })).toEqual({
      success: true,
      revokedSessions: 2,
    });
    expect(await engine.verifySession(a.token)).toBeNull();
    expect(await engine.verifySession(b.token)).toBeNull();
    expect(await codeOf(engine.sessions.signIn({ password: "correct horse" }))).toBe("UNAUTHORIZED");
    const c = await engine.sessions.signIn({ password: "battery staple" });
    expect(await engine.sessions.revokeAll({})).toEqual({ success: true, revokedSessions: 1 });
    expect(await engine.verifySession(c.token)).toBeNull();
  });

  it("opened with the old password while it changes do not survive the change", async () => {
    const { engine } = await openTestEngine();
    await engine.owner.setPassword({ password: "password-0" });
    for (let round = 1; round <= 4; round++) {
      const old = `password-${round - 1}`;
      // Both calls hash for a while before they write, so their writes land in either order.
      const [signedIn] = await Promise.allSettled([
        engine.sessions.signIn({ password: old }),
        engine.owner.setPassword({ password: `password-${round}` }),
      ]);
      if (signedIn.status === "fulfilled") {
        expect(await engine.verifySession(signedIn.value.token), `round ${round}`).toBeNull();
      } else {
        expect(signedIn.reason.code).toBe("UNAUTHORIZED");
      }
      expect(await engine.context.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
    }
  });

  it("are internal: the owner role cannot open or end them", async () => {
    const { engine } = await openTestEngine();
    await engine.owner.setPassword({ password: "correct horse" });
    expect(await codeOf(engine.sessions.signIn({ password: "correct horse" }, { role: "owner" }))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(engine.owner.setPassword({ password: "new password" }, { role: "owner" }))).toBe(
      "FORBIDDEN",
    );
  });
});
