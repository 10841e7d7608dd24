// A second server process for concurrency-engines.http.test.ts: its own engine and handler on the
// test's database. It prints "ready", waits for a line on stdin (so every process starts writing at
// once), sends replies into one Thread and creates of one title at once, then prints each answer's
// status and post ID as one JSON line.
// Run: node --conditions=source --import tsx concurrency-writer.ts '<json input>'
import { createEngine, fixedClock, sequentialIds } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createHandler } from "../src/index.js";

const input = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  schema?: string;
  rootId: string;
  replies: number;
  creates: number;
  idStart: number;
  now: number;
};
const db = await openDatabase({ url: input.url, schema: input.schema, poolSize: 8 });
const engine = createEngine({ db, clock: fixedClock(input.now), ids: sequentialIds(input.idStart) });
const handler = createHandler(engine, { devApiToken: "dev-token", clientAddress: () => "127.0.0.1" });
const post = async (body: object) => {
  const response = await handler(
    new Request("http://localhost/api/posts", {
      method: "POST",
      headers: { authorization: "Bearer dev-token", "content-type": "application/json" },
      body: JSON.stringify({ format: "note", ...body }),
    }),
  );
  const answer = (await response.json()) as { id?: string; code?: string };
  return { status: response.status, id: answer.id ?? null, code: answer.code ?? null };
};
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
const answers = await Promise.all([
  ...Array.from({ length: input.replies }, (_, i) =>
    post({ replyToId: input.rootId, bodyMarkdown: `far ${i}`, publishedAt: input.now + 500 + i }),
  ),
  ...Array.from({ length: input.creates }, () => post({ title: "Twice told" })),
]);
await engine.close();
process.stdout.write(`${JSON.stringify(answers)}\n`);
process.stdin.destroy();
