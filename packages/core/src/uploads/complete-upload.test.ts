import { describe, expect, it } from "vitest";
import { codeOf } from "../../test/support.js";
import { bytes, hangAt, openUploadSite, type UploadSite } from "../../test/upload-site.js";

/** Past any completion claim's lease, well within a session's 15-minute lifetime. */
const LEASE_LAPSED = 5 * 60;

async function sessionState(site: UploadSite, id: string): Promise<string | undefined> {
  const row = await site.engine.context.db
    .selectFrom("upload_sessions")
    .select("state")
    .where("id", "=", id)
    .executeTakeFirst();
  return row?.state;
}

async function mediaCount(site: UploadSite): Promise<number> {
  return (await site.engine.context.db.selectFrom("media").select("id").execute()).length;
}

/** A relay session with its body sent. */
async function relaySession(site: UploadSite, file: Uint8Array) {
  const { engine } = site;
  const { id } = await engine.uploads.init({
    filename: "notes.bin",
    contentType: "application/octet-stream",
    size: file.byteLength,
  });
  await engine.uploads.putBody({ id, body: file });
  return id;
}

/** A multipart relay session (parts of 8 bytes) with every part sent; returns the parts to complete with. */
async function multipartSession(site: UploadSite, file: Uint8Array) {
  const { engine } = site;
  const { id, transport } = await engine.uploads.init({
    filename: "talk.bin",
    contentType: "application/octet-stream",
    size: file.byteLength,
  });
  expect(transport.kind).toBe("multipartRelay");
  const parts = [];
  for (let n = 1; (n - 1) * 8 < file.byteLength; n++) {
    parts.push(await engine.uploads.putPart({ id, partNumber: n, body: file.subarray((n - 1) * 8, n * 8) }));
  }
  return { id, parts };
}

function storedBytes(site: UploadSite, key: string): Uint8Array | undefined {
  return site.storage.objects.get(key)?.bytes;
}

describe("uploads.complete when the process dies or a dependency fails on the way", () => {
  it("a completion cut off after its claim is finished by a retry, from the bytes already stored", async () => {
    const site = await openUploadSite();
    const file = bytes(12);
    const id = await relaySession(site, file);
    const dead = hangAt(site.storage, "head");
    const first = site.engine.uploads.complete({ id });
    first.catch(() => {});
    await dead.reached;
    // While the claim is held, a second completion (or an abort) is a conflict, not a second run.
    expect(await codeOf(site.engine.uploads.complete({ id }))).toBe("CONFLICT");
    expect(await codeOf(site.engine.uploads.abort({ id }))).toBe("CONFLICT");

    // The process that held it is gone: its claim lapses and the retry finishes the upload.
    site.clock.advance(LEASE_LAPSED);
    site.storage.fault = undefined;
    const media = await site.engine.uploads.complete({ id });
    expect(media).toMatchObject({ type: "media", size: 12, originalName: "notes.bin" });
    expect(await sessionState(site, id)).toBe("completed");
    const key = [...site.storage.objects.keys()][0] as string;
    expect(storedBytes(site, key)).toEqual(file);

    // Should the first request wake up after all, it finds its claim gone and changes nothing.
    dead.release();
    expect(await codeOf(first)).toBe("CONFLICT");
    expect(await mediaCount(site)).toBe(1);
    expect(storedBytes(site, key)).toEqual(file);
    expect(await codeOf(site.engine.uploads.complete({ id }))).toBe("CONFLICT");
  });

  it("a multipart completion that died after the store joined the parts is finished by a retry", async () => {
    const site = await openUploadSite();
    const file = bytes(20, 7);
    const { id, parts } = await multipartSession(site, file);
    const dead = hangAt(site.storage, "multipart.complete");
    void site.engine.uploads.complete({ id, parts }).catch(() => {});
    await dead.reached;
    // The store has joined the parts (its multipart upload is gone) but no media record exists.
    expect(site.storage.uploads.size).toBe(0);
    expect(await mediaCount(site)).toBe(0);

    site.clock.advance(LEASE_LAPSED);
    site.storage.fault = undefined;
    const media = await site.engine.uploads.complete({ id, parts });
    expect(media).toMatchObject({ size: 20 });
    expect(storedBytes(site, [...site.storage.objects.keys()][0] as string)).toEqual(file);
    expect(await sessionState(site, id)).toBe("completed");
  });

  it("a store that fails after the claim leaves the session open with its bytes: a retry succeeds", async () => {
    const site = await openUploadSite();
    const id = await relaySession(site, bytes(12));
    site.storage.fault = (step) => {
      if (step === "head") throw new Error("socket hang up");
    };
    const failed = await site.engine.uploads.complete({ id }).then(
      () => "OK",
      (err: unknown) => (err as { code?: string }).code ?? "thrown",
    );
    expect(failed).not.toBe("OK");
    expect(failed).not.toBe("VALIDATION_ERROR");
    expect(await sessionState(site, id)).toBe("open");
    expect(site.storage.objects.size).toBe(1);

    site.storage.fault = undefined;
    expect(await site.engine.uploads.complete({ id })).toMatchObject({ size: 12 });
  });

  it("writes the media record and the completed state in one transaction", async () => {
    const site = await openUploadSite();
    const { id, parts } = await multipartSession(site, bytes(20));
    site.faults.failInsertsInto = "media";
    const failed = await site.engine.uploads.complete({ id, parts }).then(
      () => "OK",
      (err: unknown) => (err as { code?: string }).code ?? "thrown",
    );
    expect(failed).not.toBe("OK");
    expect(await sessionState(site, id)).toBe("open");
    expect(await mediaCount(site)).toBe(0);
    // The joined file stays: the retry finds it and does not need the parts again.
    expect(site.storage.objects.size).toBe(1);

    site.faults.failInsertsInto = undefined;
    expect(await site.engine.uploads.complete({ id, parts })).toMatchObject({ size: 20 });
    expect(await sessionState(site, id)).toBe("completed");
  });

  it("after a claim lapses, the session is open for every request: a new body, then complete", async () => {
    const site = await openUploadSite();
    const id = await relaySession(site, bytes(12));
    const dead = hangAt(site.storage, "head");
    void site.engine.uploads.complete({ id }).catch(() => {});
    await dead.reached;
    expect(await codeOf(site.engine.uploads.putBody({ id, body: bytes(12, 3) }))).toBe("CONFLICT");
    site.clock.advance(LEASE_LAPSED);
    site.storage.fault = undefined;
    expect(await codeOf(site.engine.uploads.putBody({ id, body: bytes(12, 3) }))).toBe("OK");
    expect(await sessionState(site, id)).toBe("open");
    const media = await site.engine.uploads.complete({ id });
    expect(storedBytes(site, [...site.storage.objects.keys()][0] as string)).toEqual(bytes(12, 3));
    expect(media.size).toBe(12);
  });

  it("a lapsed claim past the session's lifetime is expired by cleanup, its bytes deleted", async () => {
    const site = await openUploadSite();
    const id = await relaySession(site, bytes(12));
    const dead = hangAt(site.storage, "head");
    void site.engine.uploads.complete({ id }).catch(() => {});
    await dead.reached;
    site.storage.fault = undefined;
    site.clock.advance(16 * 60);
    expect((await site.engine.cleanupExpiredUploads()).expired).toBe(1);
    expect(await sessionState(site, id)).toBe("expired");
    expect(site.storage.objects.size).toBe(0);
    expect(await codeOf(site.engine.uploads.complete({ id }))).toBe("VALIDATION_ERROR");
  });

  it("a file that fails its checks still ends the session aborted, its bytes deleted", async () => {
    const site = await openUploadSite();
    const { engine } = site;
    const file = bytes(12);
    const { id } = await engine.uploads.init({
      filename: "photo.png",
      contentType: "image/png",
      size: file.byteLength,
    });
    await engine.uploads.putBody({ id, body: file });
    expect(await codeOf(engine.uploads.complete({ id }))).toBe("VALIDATION_ERROR");
    expect(await sessionState(site, id)).toBe("aborted");
    expect(site.storage.objects.size).toBe(0);
  });
});
