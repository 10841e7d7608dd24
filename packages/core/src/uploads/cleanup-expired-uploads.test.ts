import { describe, expect, it } from "vitest";
import { bytes, openUploadSite, type UploadSite } from "../../test/upload-site.js";
import { cleanupExpiredUploads } from "./cleanup-expired-uploads.js";

const HOUR = 60 * 60;
const DAY = 24 * HOUR;

/** Stores an object as a writer that died before its record would (the test clock's time now). */
function leaveObject(site: UploadSite, key: string, size = 4): void {
  site.storage.objects.set(key, {
    bytes: bytes(size),
    contentType: "application/octet-stream",
    modifiedAt: site.clock.now(),
  });
}

function storedKeys(site: UploadSite): string[] {
  return [...site.storage.objects.keys()].sort();
}

/** A one-shot upload, whose record owns its file. */
async function uploadOne(site: UploadSite, filename: string) {
  return site.engine.media.upload({ file: bytes(10), filename, contentType: "application/octet-stream" });
}

describe("cleanup sweeps what crashes leave behind", () => {
  it("deletes objects under media/ and attachments/ that no record or open session owns, once past the grace period", async () => {
    const site = await openUploadSite();
    const { engine } = site;
    const kept = await uploadOne(site, "kept.bin");
    const post = await engine.posts.create({
      format: "note",
      bodyMarkdown: "With notes",
      attachments: [{ type: "text", content: "# Notes" }],
    });
    // A one-shot file whose process died before its row, and a post's text attachment whose
    // transaction never committed.
    leaveObject(site, "media/2023/11/med_01j0000000e00800000000dead/lost.bin");
    leaveObject(site, "attachments/med_01j0000000e00800000000dea2.md");
    // A session aborted by a process that died before deleting its bytes.
    const aborted = await engine.uploads.init({
      filename: "a.bin",
      contentType: "application/octet-stream",
      size: 4,
    });
    await engine.uploads.putBody({ id: aborted.id, body: bytes(4) });
    const abortedKey = storedKeys(site).find((key) => key.endsWith("/a.bin")) as string;
    await engine.context.db
      .updateTable("upload_sessions")
      .set({ state: "aborted" })
      .where("id", "=", aborted.id)
      .execute();
    // A video session kept open by new bodies for over an hour: its poster stays old but owned.
    const video = await engine.uploads.init({ filename: "v.mp4", contentType: "video/mp4", size: 4 });
    await engine.uploads.putPoster({ id: video.id, body: webp(), contentType: "image/webp" });
    // Objects that are not the engine's, or not old enough to call orphans, stay.
    leaveObject(site, "exports/backup.zip");
    for (let minutes = 10; minutes <= 70; minutes += 10) {
      site.clock.advance(10 * 60);
      await engine.uploads.putBody({ id: video.id, body: bytes(4) });
    }
    leaveObject(site, "media/2023/11/med_01j0000000e00800000000new1/young.bin");

    const before = storedKeys(site);
    const result = await engine.cleanupExpiredUploads();
    expect(result.swept).toBe(3);
    const gone = before.filter((key) => !storedKeys(site).includes(key));
    expect(gone.sort()).toEqual(
      [
        "media/2023/11/med_01j0000000e00800000000dead/lost.bin",
        "attachments/med_01j0000000e00800000000dea2.md",
        abortedKey,
      ].sort(),
    );
    expect(storedKeys(site)).toEqual(
      expect.arrayContaining([
        (kept.url as string).replace("/media/", ""),
        `attachments/${post.attachments[0]?.id}.md`,
        "exports/backup.zip",
        "media/2023/11/med_01j0000000e00800000000new1/young.bin",
      ]),
    );
    expect(storedKeys(site).filter((key) => key.endsWith("_poster.webp"))).toHaveLength(1);
  });

  it("purges the store's stale scratch and aborts multipart uploads no open session owns", async () => {
    const site = await openUploadSite();
    const { engine, storage } = site;
    storage.scratch.set("old.part", site.clock.now());
    const stray = await storage.multipart?.create("media/2023/11/med_01j0000000e00800000000dead/x.bin", "x");
    const open = await engine.uploads.init({
      filename: "big.bin",
      contentType: "application/octet-stream",
      size: 40,
    });
    // Keep the multipart relay moving for over a day: its upload is old but its session is open.
    for (let elapsed = 0; elapsed <= DAY + HOUR; elapsed += 10 * 60) {
      site.clock.advance(10 * 60);
      await engine.uploads.putPart({ id: open.id, partNumber: 1, body: bytes(8) });
    }
    storage.scratch.set("new.part", site.clock.now());
    const result = await engine.cleanupExpiredUploads();
    expect([...storage.scratch.keys()]).toEqual(["new.part"]);
    expect(storage.uploads.has(stray?.uploadId as string)).toBe(false);
    expect(storage.uploads.size).toBe(1);
    expect(result.swept).toBe(2);
    expect(await engine.uploads.putPart({ id: open.id, partNumber: 2, body: bytes(8) })).toMatchObject({
      partNumber: 2,
    });
  });

  it("looks at a bounded number of objects per run and resumes where the last run stopped", async () => {
    const site = await openUploadSite();
    const owned = await uploadOne(site, "owned.bin");
    const ids = Array.from(
      { length: 12 },
      (_, i) => `med_01jzzzzzzzzzzzzzzzzzzz${String(i).padStart(2, "0")}`,
    );
    for (const id of ids) leaveObject(site, `attachments/${id}.md`);
    for (const id of ids) leaveObject(site, `media/2023/11/${id}/f.bin`);
    site.clock.advance(2 * HOUR);
    const counts: number[] = [];
    for (let run = 0; run < 5; run++) {
      counts.push((await cleanupExpiredUploads(site.engine.context, { sweepObjects: 10 })).swept);
    }
    // 25 objects (one owned) looked at 10 a run: 10 swept, then 9 (the owned file is the 10th),
    // then the last 5 (the walk ends and starts again), then nothing is left to sweep.
    expect(counts).toEqual([10, 9, 5, 0, 0]);
    expect(storedKeys(site)).toEqual([(owned.url as string).replace("/media/", "")]);
  });

  it("the lazy cleanup at init does not walk the store", async () => {
    const site = await openUploadSite();
    leaveObject(site, "attachments/med_01j0000000e00800000000dead.md");
    site.clock.advance(2 * HOUR);
    await site.engine.uploads.init({ filename: "a.bin", contentType: "application/octet-stream", size: 1 });
    expect(storedKeys(site)).toEqual(["attachments/med_01j0000000e00800000000dead.md"]);
  });
});

/** The smallest WebP header the poster check accepts. */
function webp(): Uint8Array {
  const out = new Uint8Array(30);
  out.set(new TextEncoder().encode("RIFF"), 0);
  out.set(new TextEncoder().encode("WEBPVP8 "), 8);
  return out;
}
