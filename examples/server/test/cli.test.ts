import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli-commands.js";
import { runCliCapturing } from "./support/cli.js";
import { createTestSite } from "./support/processes.js";

describe("the CLI", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;

  beforeAll(async () => {
    site = await createTestSite();
  });
  afterAll(async () => {
    await site.cleanup();
  });

  const run = (...argv: string[]) => runCliCapturing(argv, site.env);

  it("prints what it applied on migrate, then that nothing is left", async () => {
    const first = await run("migrate");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Applied 001-initial$/m);
    const again = await run("migrate");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/up to date/);
  });

  it("creates a token, shows it once, lists it without its secret and revokes it", async () => {
    const created = await run("token", "create", "my", "laptop");
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^quire_tok_[0-9a-z]{26}\.[A-Za-z0-9_-]+$/);
    expect(created.stderr).toMatch(/shown only this once/);
    const id = token.slice("quire_".length, token.indexOf("."));

    const listed = await run("token", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+my laptop\\s`, "m"));
    expect(listed.stdout).not.toContain(token);

    expect((await run("token", "revoke", id)).code).toBe(0);
    expect((await run("token", "list")).stdout).not.toContain(id);
  });

  it("gives a default name when none is given", async () => {
    const created = await run("token", "create");
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/\(API token\)/);
  });

  it("exits 1 with a message when a command fails", async () => {
    const unknown = await run("token", "revoke", "tok_00000000000000000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/NOT_FOUND/);
    expect((await run("token", "revoke", "not-an-id")).code).toBe(1);
  });

  it("exits 1 naming the variable on a bad configuration", async () => {
    const code = await runCli(
      ["token", "list"],
      { ...site.env, NOINDEX: "1" },
      { out: () => {}, err: () => {} },
    );
    expect(code).toBe(1);
  });

  it("exits 2 on usage errors and 0 on help", async () => {
    expect((await run()).code).toBe(2);
    expect((await run("token")).code).toBe(2);
    expect((await run("token", "revoke")).code).toBe(2);
    expect((await run("token", "list", "extra")).code).toBe(2);
    expect((await run("frobnicate")).code).toBe(2);
    const help = await run("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/token create/);
  });
});
