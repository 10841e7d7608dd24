import { mkdtemp, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Engine } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStorage } from "./index.js";

/**
 * A local store that cannot write — a full disk, or a folder that is not one — answers a clear
 * error and records nothing as stored. (Tests run as root, so permissions would not stop them: a
 * file stands where the media folder should be, and /dev/full stands for a full disk.)
 */
describe("the engine on a local store that cannot write", () => {
  let parent: string;
  let root: string;
  let engine: Engine;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "quire-fs-faults-"));
    root = path.join(parent, "media");
    const storage = createFsStorage({ root, publicBaseUrl: "/media" });
    ({ engine, cleanup } = await createTestEngine({
      storage,
      config: { uploadMultipartThreshold: 64, uploadPartSize: 32 },
    }));
  });
  afterEach(async () => {
    await cleanup();
    await rm(parent, { recursive: true, force: true });
  });

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => ({ code: "OK", message: "" }),
      (err: { code?: string; message?: string }) => ({
        code: err.code ?? "thrown",
        message: err.message ?? "",
      }),
    );
  const mediaRows = () => engine.context.db.selectFrom("media").select("id").execute();

  it("a file where the folder should be: CONFIGURATION_ERROR, no media record, no body recorded", async () => {
    await writeFile(root, "not a folder");
    const file = new Uint8Array(10);
    const oneShot = await failure(
      engine.media.upload({ file, filename: "a.bin", contentType: "application/octet-stream" }),
    );
    expect(oneShot.code).toBe("CONFIGURATION_ERROR");
    expect(oneShot.message).not.toMatch(/ENOTDIR|EEXIST|\/tmp\//);
    expect(await mediaRows()).toEqual([]);

    const relay = await engine.uploads.init({
      filename: "b.bin",
      contentType: "application/octet-stream",
      size: 10,
    });
    expect((await failure(engine.uploads.putBody({ id: relay.id, body: file }))).code).toBe(
      "CONFIGURATION_ERROR",
    );
    const session = await engine.context.db
      .selectFrom("upload_sessions")
      .select(["state", "received_size"])
      .where("id", "=", relay.id)
      .executeTakeFirstOrThrow();
    expect(session).toEqual({ state: "open", received_size: null });
    // Nothing was stored, so completing is refused until a body arrives.
    expect((await failure(engine.uploads.complete({ id: relay.id }))).code).toBe("VALIDATION_ERROR");
    expect(
      (
        await failure(
          engine.uploads.init({ filename: "c.bin", contentType: "application/octet-stream", size: 100 }),
        )
      ).code,
    ).toBe("CONFIGURATION_ERROR");
  });

  it("a post's text attachment on a store that cannot write: CONFIGURATION_ERROR and no post", async () => {
    await writeFile(root, "not a folder");
    const created = await failure(
      engine.posts.create({
        format: "note",
        bodyMarkdown: "Hi",
        attachments: [{ type: "text", content: "# A" }],
      }),
    );
    expect(created.code).toBe("CONFIGURATION_ERROR");
    expect(await engine.context.db.selectFrom("posts").select("id").execute()).toEqual([]);
    expect(await mediaRows()).toEqual([]);
  });

  it("a full disk: EXTERNAL_SERVICE_ERROR, no part recorded, and the part goes through once there is room", async () => {
    const upload = await engine.uploads.init({
      filename: "big.bin",
      contentType: "application/octet-stream",
      size: 100,
    });
    expect(upload.transport.kind).toBe("multipartRelay");
    const { multipart_upload_id } = await engine.context.db
      .selectFrom("upload_sessions")
      .select("multipart_upload_id")
      .where("id", "=", upload.id)
      .executeTakeFirstOrThrow();
    // Parts are written in place into the upload's data file: make every write to it ENOSPC.
    const data = path.join(root, ".tmp", "multipart", multipart_upload_id as string, "data");
    await unlink(data);
    await symlink("/dev/full", data);
    const part = new Uint8Array(32).fill(7);
    const full = await failure(engine.uploads.putPart({ id: upload.id, partNumber: 1, body: part }));
    expect(full.code).toBe("EXTERNAL_SERVICE_ERROR");
    expect(full.message).toMatch(/space/i);
    expect(await engine.context.db.selectFrom("upload_parts").select("part_number").execute()).toEqual([]);

    await unlink(data);
    await writeFile(data, "");
    expect(await engine.uploads.putPart({ id: upload.id, partNumber: 1, body: part })).toMatchObject({
      partNumber: 1,
    });
  });
});
