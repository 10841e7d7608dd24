/**
 * Writes docs/openapi.json and docs/api.md (`pnpm openapi`), or with `--check` fails when the
 * committed copies differ from what the code generates (`pnpm openapi --check`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  committedOpenApi,
  renderApiMarkdown,
  workedExamples,
} from "../packages/http-adapter/scripts/api-docs.js";

const docs = fileURLToPath(new URL("../docs/", import.meta.url));
const examples = await workedExamples();
const doc = committedOpenApi(examples);
const files = {
  "openapi.json": `${JSON.stringify(doc, null, 2)}\n`,
  "api.md": renderApiMarkdown(doc, examples),
};
const check = process.argv.includes("--check");
let stale = false;
for (const [name, text] of Object.entries(files)) {
  const target = `${docs}${name}`;
  if (check) {
    let current = "";
    try {
      current = readFileSync(target, "utf8");
    } catch {}
    if (current !== text) {
      stale = true;
      console.error(`docs/${name} is stale: run pnpm openapi`);
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote docs/${name}`);
  }
}
if (stale) process.exit(1);
