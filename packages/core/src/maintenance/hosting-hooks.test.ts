import { describe, expect, it, onTestFinished } from "vitest";
import { createMemoryStorage } from "../../test/memory-storage.js";
import { codeOf } from "../../test/support.js";
import { bytes } from "../../test/upload-site.js";
import { internalCaller, ownerCaller, publicCaller } from "../caller.js";
import type { MediaQuotaRequest, SiteAvailabilityRequest } from "../deps.js";
import { createEngine } from "../engine.js";
import { sequentialIds } from "../shared/ids.js";
import { fixedClock } from "../shared/time.js";
import { openTestDatabase } from "../testing/test-engine.js";

/** An engine with a memory store (multipart above 16 bytes, parts of 8) and the hooks a test controls. */
async function openHostedSite() {
  const { db, cleanup } = await openTestDatabase();
  onTestFinished(cleanup);
  const clock = fixedClock();
  const storage = createMemoryStorage(() => clock.now());
  const state = { available: true, quotaBytes: Number.POSITIVE_INFINITY };
  const availability: SiteAvailabilityRequest[] = [];
  const quota: { bytes: number | null; stage: string; stored: number }[] = [];
  const engine = createEngine({
    db,
    clock,
    ids: sequentialIds(),
    storage,
    config: { uploadMultipartThreshold: 16, uploadPartSize: 8 },
    hooks: {
      siteAvailable: (request) => {
        availability.push(request);
        return state.available;
      },
      mediaQuota: async (request: MediaQuotaRequest) => {
        const stored = await request.storedBytes();
        quota.push({ bytes: request.bytes, stage: request.stage, stored });
        // Before a one-shot upload's bytes are read: refuse only a quota already used up.
        return request.bytes === null
          ? stored < state.quotaBytes
          : stored + request.bytes <= state.quotaBytes;
      },
    },
  });
  await engine.migrate();
  return { engine, storage, state, availability, quota };
}

describe("the siteAvailable hook", () => {
  it("answers 503 SITE_UNAVAILABLE to every caller of a suspended site, except internal operations", async () => {
    const { engine, state, availability } = await openHostedSite();
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Hello." });
    state.available = false;
    expect(await codeOf(engine.posts.list({}))).toBe("SITE_UNAVAILABLE");
    expect(await codeOf(engine.posts.update({ id: post.id, bodyMarkdown: "Changed." }))).toBe(
      "SITE_UNAVAILABLE",
    );
    expect(await codeOf(engine.publicThreads.list({}, publicCaller))).toBe("SITE_UNAVAILABLE");
    expect(await codeOf(engine.resolve(`/${post.slug}`))).toBe("SITE_UNAVAILABLE");
    expect(availability.at(-1)).toEqual({ operationId: "addresses.resolve" });
    // Refused before it ran: nothing changed.
    state.available = true;
    expect((await engine.posts.get({ id: post.id })).bodyText).toBe("Hello.");
    state.available = false;
    // The operator's tools still work on a suspended site.
    const calls = availability.length;
    expect((await engine.tokens.list({})).tokens).toEqual([]);
    expect(await engine.search.reindex({})).toMatchObject({ processed: 1 });
    expect(availability.length).toBe(calls);
    // So does any operation the operator calls as the internal admin (an export of a suspended site).
    expect((await engine.posts.get({ id: post.id }, internalCaller)).bodyText).toBe("Hello.");
    // Validation does not come first: a suspended site says so, whatever the input.
    expect(await codeOf(engine.posts.get({ id: "nonsense" }, ownerCaller))).toBe("SITE_UNAVAILABLE");
  });
});

describe("the mediaQuota hook", () => {
  it("refuses an upload session at init past the quota, opening nothing", async () => {
    const { engine, state, quota } = await openHostedSite();
    state.quotaBytes = 10;
    expect(
      await codeOf(
        engine.uploads.init({ filename: "a.bin", contentType: "application/octet-stream", size: 11 }),
      ),
    ).toBe("MEDIA_QUOTA_EXCEEDED");
    expect(quota).toEqual([{ bytes: 11, stage: "init", stored: 0 }]);
    expect(await engine.context.db.selectFrom("upload_sessions").selectAll().execute()).toEqual([]);
    const fits = await engine.uploads.init({
      filename: "a.bin",
      contentType: "application/octet-stream",
      size: 10,
    });
    expect(fits.id).toMatch(/^upl_/);
  });

  it("refuses a one-shot upload past the quota, keeping none of its bytes", async () => {
    const { engine, storage, state, quota } = await openHostedSite();
    state.quotaBytes = 15;
    const first = await engine.media.upload({
      file: bytes(10),
      filename: "a.bin",
      contentType: "application/octet-stream",
    });
    expect(first.size).toBe(10);
    expect(await codeOf(engine.media.upload({ file: bytes(6), filename: "b.bin" }))).toBe(
      "MEDIA_QUOTA_EXCEEDED",
    );
    expect(quota.at(-1)).toEqual({ bytes: 6, stage: "upload", stored: 10 });
    expect(storage.objects.size).toBe(1);
    expect(await engine.context.db.selectFrom("media").select("id").execute()).toEqual([{ id: first.id }]);
    // A quota already used up refuses before any byte is read.
    state.quotaBytes = 10;
    quota.length = 0;
    expect(await codeOf(engine.media.upload({ file: bytes(1), filename: "c.bin" }))).toBe(
      "MEDIA_QUOTA_EXCEEDED",
    );
    expect(quota).toEqual([{ bytes: null, stage: "upload-start", stored: 10 }]);
    expect(storage.objects.size).toBe(1);
  });

  it("refuses a completion when the quota filled since init: the session is aborted and its parts deleted", async () => {
    const { engine, storage, state } = await openHostedSite();
    state.quotaBytes = 40;
    const file = bytes(20);
    const { id, transport } = await engine.uploads.init({
      filename: "talk.bin",
      contentType: "application/octet-stream",
      size: 20,
    });
    expect(transport.kind).toBe("multipartRelay");
    const parts = [];
    for (let n = 1; (n - 1) * 8 < file.byteLength; n++) {
      parts.push(
        await engine.uploads.putPart({ id, partNumber: n, body: file.subarray((n - 1) * 8, n * 8) }),
      );
    }
    // Another upload takes the room meanwhile.
    await engine.media.upload({ file: bytes(25), filename: "other.bin" });
    expect(await codeOf(engine.uploads.complete({ id, parts }))).toBe("MEDIA_QUOTA_EXCEEDED");
    const session = await engine.context.db
      .selectFrom("upload_sessions")
      .select("state")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(session.state).toBe("aborted");
    expect(storage.uploads.size).toBe(0);
    expect(storage.objects.size).toBe(1);
    expect(await engine.context.db.selectFrom("media").select("size").execute()).toEqual([{ size: 25 }]);
  });

  it("lets every upload through without a hook", async () => {
    const { db, cleanup } = await openTestDatabase();
    onTestFinished(cleanup);
    const clock = fixedClock();
    const engine = createEngine({
      db,
      clock,
      ids: sequentialIds(),
      storage: createMemoryStorage(() => clock.now()),
    });
    await engine.migrate();
    expect((await engine.media.upload({ file: bytes(100), filename: "a.bin" })).size).toBe(100);
  });
});
