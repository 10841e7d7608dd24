import { expect, it } from "vitest";
import { createHandler, type FetchHandler } from "../src/index.js";
import { checkInvariants } from "./concurrency-invariants.js";
import { assertErrorShape } from "./helpers.js";
import { openTwoEngines, twoEnginesNow } from "./two-engines.js";
import { formBody, pngFile } from "./uploads-fixtures.js";

/**
 * Random valid writes, eight at a time, through two engines sharing one database: posts and
 * replies, slugs and paths, languages and translations, collections and their Threads and pins,
 * smart collections, navigation, the directory, custom URLs, settings, media and relay uploads, all
 * aimed at a few shared records (the four newest of each kind, five slugs, three languages) so that
 * they collide. No answer may be a 5xx or off the spec's shape, nothing may be logged as an
 * unexpected error, and afterwards every invariant of concurrency-invariants.ts must hold. The
 * targeted tests beside it pin known races; this one looks for the ones nobody listed.
 * `QUIRE_CONCURRENCY_ROUNDS` and `QUIRE_CONCURRENCY_SEED` change the run. @see docs/reliability.md
 */
const rounds = Number(process.env.QUIRE_CONCURRENCY_ROUNDS ?? 400);
const seed = Number(process.env.QUIRE_CONCURRENCY_SEED ?? 20_261_129);
const t0 = twoEnginesNow;
const slugs = ["a", "b", "c", "d", "e"];
const languages = ["en", "fr", "de"];

type Kind = "post" | "root" | "collection" | "smart" | "nav" | "directory" | "customUrl" | "media";
type Answer = { status: number; body: { id?: string } | null };

/** What the writes name: IDs the site has given out (a deleted one stays, to be named again). */
class Names {
  private readonly ids = new Map<Kind, string[]>();
  constructor(private readonly random: () => number) {}
  add(kind: Kind, id: string | undefined): void {
    if (id) this.ids.set(kind, [...(this.ids.get(kind) ?? []), id]);
  }
  /** One of the four newest of a kind: writes crowd onto the same few records. */
  pick(kind: Kind): string | null {
    const list = this.recent(kind);
    return list.length === 0 ? null : (list[Math.floor(this.random() * list.length)] as string);
  }
  some(kind: Kind, most: number): string[] {
    return this.recent(kind)
      .filter(() => this.random() < 0.5)
      .slice(0, most);
  }
  private recent(kind: Kind): string[] {
    return (this.ids.get(kind) ?? []).slice(-4);
  }
}

interface Run {
  send(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  names: Names;
  chance(p: number): boolean;
  one<T>(values: readonly T[]): T;
}

/** A move's body: `after`, `before`, or both (which need not be neighbours: 500 once). */
function neighbours(chance: (p: number) => boolean, pick: () => string | null) {
  if (chance(0.4)) return { after: pick() };
  if (chance(0.6)) return { before: pick() };
  return { after: pick(), before: pick() };
}

/** The writes, by the operation they are mostly aimed at. */
const writes: Record<string, (run: Run) => Promise<void>> = {
  "posts.create": async ({ send, names, chance, one }) => {
    const replyToId = chance(0.4) ? names.pick("post") : null;
    const answer = await send("POST", "/api/posts", {
      format: "note",
      title: `Note ${one(slugs)}`,
      bodyMarkdown: "Some **bold** text",
      status: chance(0.2) ? "draft" : "published",
      ...(replyToId
        ? { replyToId, quietReply: chance(0.3) }
        : {
            collectionIds: names.some("collection", 2),
            ...(chance(0.3) ? { slug: one(slugs) } : {}),
            ...(chance(0.2) ? { translationOfId: names.pick("root") } : {}),
          }),
      ...(chance(0.3) ? { language: one(languages) } : {}),
      ...(chance(0.2)
        ? { attachments: names.some("media", 1).map((mediaId) => ({ type: "media", mediaId })) }
        : {}),
    });
    if (answer.status !== 201) return;
    names.add("post", answer.body?.id);
    if (!replyToId) names.add("root", answer.body?.id);
  },
  "posts.update": async ({ send, names, chance, one }) => {
    const id = names.pick("post");
    if (!id) return;
    await send("PUT", `/api/posts/${id}`, {
      ...(chance(0.5) ? { slug: one(slugs) } : { title: "Edited" }),
      ...(chance(0.3) ? { status: one(["draft", "published"]) } : {}),
      ...(chance(0.3) ? { collectionIds: names.some("collection", 3) } : {}),
      ...(chance(0.2) ? { visibility: one(["public", "private", "latest_hidden"]) } : {}),
      ...(chance(0.2) ? { pinned: chance(0.5) } : {}),
      ...(chance(0.2)
        ? { attachments: names.some("media", 2).map((mediaId) => ({ type: "media", mediaId })) }
        : {}),
    });
  },
  "posts.delete": async ({ send, names, chance }) => {
    const id = names.pick("post");
    if (id && chance(0.5)) await send("DELETE", `/api/posts/${id}`);
  },
  "posts.setLanguage": async ({ send, names, one }) => {
    const id = names.pick("post");
    if (id) await send("PUT", `/api/posts/${id}/language`, { language: one(languages) });
  },
  "translations.link": async ({ send, names }) => {
    const [id, other] = [names.pick("root"), names.pick("root")];
    if (id && other) await send("POST", `/api/posts/${id}/translations`, { postId: other });
  },
  "translations.unlink": async ({ send, names }) => {
    const id = names.pick("root");
    if (id) await send("DELETE", `/api/posts/${id}/translations`);
  },
  "collections.create": async ({ send, names, one }) => {
    const answer = await send("POST", "/api/collections", { slug: one(slugs), title: "Shelf" });
    if (answer.status === 201) names.add("collection", answer.body?.id);
  },
  "collections.update": async ({ send, names, one }) => {
    const id = names.pick("collection");
    if (id) await send("PUT", `/api/collections/${id}`, { slug: one(slugs), title: "Renamed" });
  },
  "collections.delete": async ({ send, names, chance }) => {
    const id = names.pick("collection");
    if (id && chance(0.3)) await send("DELETE", `/api/collections/${id}`);
  },
  "collections.addThread": async ({ send, names }) => {
    const [id, threadId] = [names.pick("collection"), names.pick("post")];
    if (id && threadId) await send("POST", `/api/collections/${id}/threads`, { threadId });
  },
  "collections.removeThread": async ({ send, names }) => {
    const [id, threadId] = [names.pick("collection"), names.pick("post")];
    if (id && threadId) await send("DELETE", `/api/collections/${id}/threads/${threadId}`);
  },
  "collections.pinThread": async ({ send, names, chance }) => {
    const [id, threadId] = [names.pick("collection"), names.pick("post")];
    if (id && threadId)
      await send(chance(0.6) ? "PUT" : "DELETE", `/api/collections/${id}/threads/${threadId}/pin`);
  },
  "smartCollections.create": async ({ send, names, chance, one }) => {
    const collection = names.pick("collection");
    const answer = await send("POST", "/api/smart-collections", {
      slug: one(slugs),
      title: "Gathered",
      selection: collection && chance(0.5) ? { collection: [collection] } : { replies: true },
    });
    if (answer.status === 201) names.add("smart", answer.body?.id);
  },
  "smartCollections.update": async ({ send, names, one }) => {
    const [id, collection] = [names.pick("smart"), names.pick("collection")];
    if (id)
      await send("PUT", `/api/smart-collections/${id}`, {
        slug: one(slugs),
        selection: collection ? { collection: [collection] } : {},
      });
  },
  "smartCollections.delete": async ({ send, names, chance }) => {
    const id = names.pick("smart");
    if (id && chance(0.3)) await send("DELETE", `/api/smart-collections/${id}`);
  },
  "navItems.create": async ({ send, names, one }) => {
    const item = one([
      { type: "link", label: "Elsewhere", url: "/elsewhere" },
      { type: "system", systemKey: one(["rss", "archive"]) },
      { type: "collection", collectionId: names.pick("collection") },
      { type: "smart_collection", smartCollectionId: names.pick("smart") },
      { type: "page", postId: names.pick("root") },
    ]);
    const answer = await send("POST", "/api/nav-items", item);
    if (answer.status === 201) names.add("nav", answer.body?.id);
  },
  "navItems.move": async ({ send, names, chance }) => {
    const id = names.pick("nav");
    if (id)
      await send(
        "PUT",
        `/api/nav-items/${id}/move`,
        neighbours(chance, () => names.pick("nav")),
      );
  },
  "navItems.delete": async ({ send, names, chance }) => {
    const id = names.pick("nav");
    if (id && chance(0.4)) await send("DELETE", `/api/nav-items/${id}`);
  },
  "directoryItems.create": async ({ send, names, chance }) => {
    const item = chance(0.5)
      ? { type: "divider", label: "Between" }
      : { type: "link", label: "Out", url: "/out" };
    const answer = await send("POST", "/api/collections/directory-items", item);
    if (answer.status === 201) names.add("directory", answer.body?.id);
  },
  "directoryItems.move": async ({ send, names, chance }) => {
    const id = names.pick("directory");
    if (id)
      await send(
        "PUT",
        `/api/collections/directory-items/${id}/move`,
        neighbours(chance, () => names.pick("directory")),
      );
  },
  "directoryItems.delete": async ({ send, names, chance }) => {
    const id = names.pick("directory");
    if (id && chance(0.4)) await send("DELETE", `/api/collections/directory-items/${id}`);
  },
  "customUrls.create": async ({ send, names, one }) => {
    const target = one([
      { targetType: "post", targetId: names.pick("post") },
      { targetType: "collection", targetId: names.pick("collection") },
      { targetType: "redirect", toPath: `/${one(slugs)}`, redirectType: 301 },
    ]);
    const answer = await send("POST", "/api/custom-urls", { path: `/old/${one(slugs)}`, ...target });
    if (answer.status === 201) names.add("customUrl", answer.body?.id);
  },
  "customUrls.update": async ({ send, names, chance, one }) => {
    const id = names.pick("customUrl");
    if (id)
      await send(
        "PUT",
        `/api/custom-urls/${id}`,
        chance(0.5) ? { path: `/old/${one(slugs)}` } : { targetType: "post", targetId: names.pick("post") },
      );
  },
  "customUrls.delete": async ({ send, names, chance }) => {
    const id = names.pick("customUrl");
    if (id && chance(0.4)) await send("DELETE", `/api/custom-urls/${id}`);
  },
  "settings.update": async ({ send, one }) => {
    await send("PUT", "/api/settings", { SITE_NAME: `Site ${one(slugs)}`, SITE_LANGUAGE: one(languages) });
  },
  "media.upload": async ({ send, names }) => {
    const form = formBody([{ name: "file", filename: "dot.png", type: "image/png", data: pngFile(2, 2) }]);
    const answer = await send("POST", "/api/upload", form.body, { "content-type": form.contentType });
    if (answer.status === 201) names.add("media", answer.body?.id);
  },
  "uploads (relay)": async ({ send, chance }) => {
    const file = pngFile(3, 3);
    const init = await send("POST", "/api/uploads/init", {
      filename: "relay.png",
      contentType: "image/png",
      size: file.byteLength,
    });
    const session = init.body as { id?: string; transport?: { url: string } } | null;
    if (init.status !== 200 || !session?.id || !session.transport) return;
    await send("PUT", session.transport.url, file, { "content-type": "image/png" });
    // Now and then the session is completed twice, or aborted as it completes.
    const rival = chance(0.3) ? (chance(0.5) ? "complete" : "abort") : null;
    // Its media is not named by other writes: the invariants hold a completed session to its media row.
    await Promise.all([
      send("POST", `/api/uploads/${session.id}/complete`, {}),
      rival ? send("POST", `/api/uploads/${session.id}/${rival}`, {}) : null,
    ]);
  },
  "posts.update (collectionEntries)": async ({ send, names, chance }) => {
    const id = names.pick("root");
    if (!id) return;
    await send("PUT", `/api/posts/${id}`, {
      collectionEntries: names.some("collection", 3).map((collectionId, index) => ({
        collectionId,
        position: index,
        ...(chance(0.5) ? { pinnedAt: t0 + index } : {}),
      })),
    });
  },
  "posts.create (path)": async ({ send, names, one }) => {
    const answer = await send("POST", "/api/posts", {
      format: "link",
      title: "Elsewhere",
      url: "https://example.org/",
      path: `2024/${one(slugs)}`,
    });
    if (answer.status !== 201) return;
    names.add("post", answer.body?.id);
    names.add("root", answer.body?.id);
  },
  "settings.delete": async ({ send, one }) => {
    await send("DELETE", `/api/settings/${one(["SITE_NAME", "SITE_LANGUAGE", "ADDITIONAL_LANGUAGES"])}`);
  },
  "media.update": async ({ send, names, chance }) => {
    const id = names.pick("media");
    if (id)
      await (chance(0.3)
        ? send("DELETE", `/api/media/${id}`)
        : send("PUT", `/api/media/${id}`, { alt: "A dot" }));
  },
  "public reads": async ({ send, one }) => {
    await send("GET", "/api/public/threads?include=fold");
    await send("GET", `/api/public/resolve?path=/${one(slugs)}`);
  },
};

it(`keeps every invariant through ${rounds} rounds of 8 random writes on two engines`, async () => {
  const { first, second } = await openTwoEngines();
  const problems: string[] = [];
  // An unexpected error is logged with its cause, which the 500 it answers leaves out.
  const logger = {
    info() {},
    warn() {},
    error: (message: string, fields?: unknown) =>
      void problems.push(`logged ${message}: ${JSON.stringify(fields)}`),
  };
  const handlers: FetchHandler[] = [first, second].map((engine) =>
    createHandler(engine, { devApiToken: "dev-token", clientAddress: () => "127.0.0.1", logger }),
  );
  let state = seed >>> 0;
  // A seeded LCG: the same seed sends the same writes (which of two colliding writes wins may differ).
  const random = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
  const names = new Names(random);
  const succeeded = new Map<string, number>();
  const runFor = (write: string): Run => ({
    names,
    chance: (p) => random() < p,
    one: (values) => values[Math.floor(random() * values.length)] as (typeof values)[number],
    async send(method, url, body, headers = {}) {
      const handler = handlers[Math.floor(random() * handlers.length)] as FetchHandler;
      const raw = body === undefined || body instanceof Uint8Array ? body : JSON.stringify(body);
      const response = await handler(
        new Request(`http://localhost${url}`, {
          method,
          headers: {
            authorization: "Bearer dev-token",
            ...(typeof raw === "string" ? { "content-type": "application/json" } : {}),
            ...headers,
          },
          ...(raw === undefined ? {} : { body: raw as BodyInit }),
        }),
      );
      const text = await response.text();
      const parsed = text === "" ? null : JSON.parse(text);
      const request = `${write}: ${method} ${url} ${typeof raw === "string" ? raw : ""}`;
      if (response.status >= 500) problems.push(`${request} → ${response.status} ${text.slice(0, 300)}`);
      try {
        assertErrorShape(response.status, parsed);
      } catch (err) {
        problems.push(`${request} → ${String(err)}`);
      }
      if (response.status < 300) succeeded.set(write, (succeeded.get(write) ?? 0) + 1);
      return { status: response.status, body: parsed };
    },
  });
  const kinds = Object.keys(writes);
  for (let round = 0; round < rounds; round++) {
    const batch = Array.from({ length: 8 }, () => kinds[Math.floor(random() * kinds.length)] as string);
    await Promise.all(batch.map((write) => writes[write]?.(runFor(write))));
  }
  expect(problems).toEqual([]);
  // The run reached past refusals: the writes that shape what the invariants check all happened.
  expect(
    [
      "posts.create",
      "posts.update",
      "posts.delete",
      "collections.create",
      "collections.addThread",
      "navItems.create",
      "navItems.move",
      "directoryItems.move",
      "media.upload",
      "uploads (relay)",
    ].filter((write) => !succeeded.has(write)),
  ).toEqual([]);
  await checkInvariants(first.context.db);
}, 120_000);
