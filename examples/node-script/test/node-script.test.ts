import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const exampleDir = dirname(dirname(fileURLToPath(import.meta.url)));
const dataDir = mkdtempSync(join(tmpdir(), "quire-node-script-"));

// The script runs as a user runs it (its own process, on SQLite), through the `start` command's
// Node flags so that @quire/core resolves to the workspace's sources.
const run = () =>
  promisify(execFile)(process.execPath, ["--conditions=source", "--import", "tsx", "script.mjs"], {
    cwd: exampleDir,
    env: { ...process.env, DATA_DIR: dataDir },
  });

// The script opens its own SQLite file, whichever database the suite runs on: run it once.
describe.skipIf(process.env.QUIRE_TEST_DATABASE === "postgres")("examples/node-script", () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("publishes the folder's Markdown files once and lists them", async () => {
    const first = await run();
    expect(first.stdout).toContain("published hello\npublished untitled-note\n");
    expect(first.stdout).toContain("hello\t<p>First <em>post</em>, from a plain Node script.</p>");

    const second = await run();
    expect(second.stdout).toContain("already there: hello\nalready there: untitled-note\n");
    expect(second.stdout.match(/^hello\t/gm)).toHaveLength(1);
  }, 120_000); // two Node processes that load core's TypeScript sources through tsx
});
