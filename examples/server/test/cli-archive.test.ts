import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openEngine } from "../src/server.js";
import { createStorage } from "../src/storage.js";
import { runCliCapturing } from "./support/cli.js";
import { createTestSite } from "./support/processes.js";

const sites: Awaited<ReturnType<typeof createTestSite>>[] = [];
afterAll(async () => {
  for (const site of sites) await site.cleanup();
});

async function newSite() {
  const site = await createTestSite();
  sites.push(site);
  return site;
}

function run(env: Record<string, string>, argv: string[], isTTY = false) {
  return runCliCapturing(argv, env, { isTTY });
}

/** An engine on a site's database and storage, as the server opens it. */
async function engineOf(env: Record<string, string>) {
  const config = loadConfig(env);
  const engine = await openEngine(
    config,
    { info: () => {}, warn: () => {}, error: () => {} },
    await createStorage(config, env),
  );
  await engine.migrate();
  return engine;
}

describe("quire export and quire import", () => {
  it("carry a site with its media to another, refuse to overwrite unless --force, and refuse a cut archive", async () => {
    const source = await newSite();
    const engine = await engineOf(source.env);
    const media = await engine.media.upload({
      file: new TextEncoder().encode("%PDF-1.4 hello"),
      filename: "a.pdf",
    });
    const post = await engine.posts.create({
      format: "note",
      title: "Carried",
      bodyMarkdown: "over",
      attachments: [{ type: "media", mediaId: media.id }],
    });
    await engine.close();
    const file = path.join(source.dataDir, "site.quire");

    const exported = await run(source.env, ["export", file], true);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/Exported the site/);
    expect(exported.stderr).toMatch(/Exporting \[#+\] 100% files 1\/1/);

    const target = await newSite();
    const imported = await run(target.env, ["import", file]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Imported \d+ rows and 1 files/);
    expect(imported.stderr).not.toContain("\r");
    const copy = await engineOf(target.env);
    expect((await copy.posts.get({ id: post.id })).title).toBe("Carried");
    const row = await copy.context.db
      .selectFrom("media")
      .select("storage_key")
      .where("id", "=", media.id)
      .executeTakeFirstOrThrow();
    const read = await copy.context.storage?.get(row.storage_key);
    await copy.close();
    expect(read).toBeTruthy();

    const again = await run(target.env, ["import", file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/CONFLICT.*force/);
    expect((await run(target.env, ["import", file, "--force"])).code).toBe(0);

    const cut = path.join(source.dataDir, "cut.quire");
    const whole = readFileSync(file);
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const fresh = await newSite();
    const refused = await run(fresh.env, ["import", cut]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/VALIDATION_ERROR.*(truncated|corrupt)/);
  });
});
