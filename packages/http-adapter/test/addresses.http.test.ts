import { describe, expect, it } from "vitest";
import { statusCounts } from "./concurrency-invariants.js";
import { createTestSite, expectError, type TestResponse, type TestSite } from "./helpers.js";

/**
 * One address space: post slugs, post paths (and the aliases they store), collection and smart
 * collection slugs, custom URL aliases and redirects all claim addresses in `site_addresses`. Every
 * claimant is tried against every other, in both orders, on creation and on a move; then many at
 * once. @see docs/custom-urls.md § One address space
 */

/** Something that claims an address; `setup` runs first (an owner to move, a post to alias). */
interface Claimant {
  name: string;
  /** Only claimants that take a path (several segments) can claim a multi-segment address. */
  takesPaths: boolean;
  /** What `addresses.resolve` reports at the address once this claimant holds it. */
  kind: string;
  setup?: (site: TestSite, tag: string) => Promise<string>;
  claim: (site: TestSite, address: string, prepared: string) => Promise<TestResponse>;
  status: number;
}

async function ok(res: Promise<TestResponse>, status = 201): Promise<TestResponse> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer;
}

const note = { format: "note", bodyMarkdown: "Text" };

const claimants: Claimant[] = [
  {
    name: "post slug",
    takesPaths: false,
    kind: "post",
    claim: (site, address) => site.call("POST", "/api/posts", { ...note, slug: address }),
    status: 201,
  },
  {
    name: "post path",
    takesPaths: true,
    kind: "post",
    claim: (site, address) => site.call("POST", "/api/posts", { ...note, path: address }),
    status: 201,
  },
  {
    name: "collection slug",
    takesPaths: false,
    kind: "collection",
    claim: (site, address) => site.call("POST", "/api/collections", { slug: address, title: "C" }),
    status: 201,
  },
  {
    name: "smart collection slug",
    takesPaths: false,
    kind: "smart_collection",
    claim: (site, address) => site.call("POST", "/api/smart-collections", { slug: address, title: "S" }),
    status: 201,
  },
  {
    name: "custom URL alias",
    takesPaths: true,
    kind: "post",
    setup: async (site, tag) =>
      (await ok(site.call("POST", "/api/posts", { ...note, slug: `aliased-${tag}` }))).body.id,
    claim: (site, address, postId) =>
      site.call("POST", "/api/custom-urls", { path: address, targetType: "post", targetId: postId }),
    status: 201,
  },
  {
    name: "redirect",
    takesPaths: true,
    kind: "redirect",
    claim: (site, address) =>
      site.call("POST", "/api/custom-urls", { path: address, targetType: "redirect", toPath: "/" }),
    status: 201,
  },
  {
    name: "post slug move",
    takesPaths: false,
    kind: "post",
    setup: async (site, tag) =>
      (await ok(site.call("POST", "/api/posts", { ...note, slug: `mover-${tag}` }))).body.id,
    claim: (site, address, id) => site.call("PUT", `/api/posts/${id}`, { slug: address }),
    status: 200,
  },
  {
    name: "collection slug move",
    takesPaths: false,
    kind: "collection",
    setup: async (site, tag) =>
      (await ok(site.call("POST", "/api/collections", { slug: `col-mover-${tag}`, title: "C" }))).body.id,
    claim: (site, address, id) => site.call("PUT", `/api/collections/${id}`, { slug: address }),
    status: 200,
  },
  {
    name: "smart collection slug move",
    takesPaths: false,
    kind: "smart_collection",
    setup: async (site, tag) =>
      (await ok(site.call("POST", "/api/smart-collections", { slug: `smc-mover-${tag}`, title: "S" }))).body
        .id,
    claim: (site, address, id) => site.call("PUT", `/api/smart-collections/${id}`, { slug: address }),
    status: 200,
  },
  {
    name: "custom URL move",
    takesPaths: true,
    kind: "redirect",
    setup: async (site, tag) =>
      (
        await ok(
          site.call("POST", "/api/custom-urls", {
            path: `url-mover-${tag}`,
            targetType: "redirect",
            toPath: "/",
          }),
        )
      ).body.id,
    claim: (site, address, id) => site.call("PUT", `/api/custom-urls/${id}`, { path: address }),
    status: 200,
  },
];

/** Everything a failed claim could have left behind: the lists of each claimant's records. */
async function snapshot(site: TestSite): Promise<unknown> {
  const [posts, collections, smart, urls] = await Promise.all([
    site.call("GET", "/api/posts?limit=100"),
    site.call("GET", "/api/collections"),
    site.call("GET", "/api/smart-collections"),
    site.call("GET", "/api/custom-urls"),
  ]);
  return {
    posts: posts.body.posts.map((p: { id: string; slug: string }) => [p.id, p.slug]),
    collections: collections.body.directoryItems.map((c: { collectionId: string | null }) => c.collectionId),
    smart: smart.body.smartCollections.map((s: { id: string; slug: string }) => [s.id, s.slug]),
    urls: urls.body.customUrls.map((u: { id: string; path: string }) => [u.id, u.path]),
  };
}

describe("one address space", () => {
  it("a slug-shaped address held by any claimant answers 409 to every other, in both orders", async () => {
    const site = await createTestSite();
    let n = 0;
    for (const first of claimants) {
      for (const second of claimants) {
        n++;
        const address = `spot-${n}`;
        const label = `${first.name} then ${second.name} (${address})`;
        const firstPrepared = first.setup ? await first.setup(site, `${n}a`) : "";
        const secondPrepared = second.setup ? await second.setup(site, `${n}b`) : "";
        const held = await first.claim(site, address, firstPrepared);
        expect(held.status, `${label}: ${JSON.stringify(held.body)}`).toBe(first.status);
        const before = await snapshot(site);
        const refused = await second.claim(site, address, secondPrepared);
        expectError(refused, 409, "CONFLICT", label);
        expect(await snapshot(site), label).toEqual(before);
        const resolved = await site.call("GET", `/api/public/resolve?path=/${address}`);
        expect(resolved.body.kind, label).toBe(first.kind);
      }
    }
  });

  it("a multi-segment address held by a path claimant answers 409 to every other path claimant", async () => {
    const site = await createTestSite();
    const pathClaimants = claimants.filter((c) => c.takesPaths);
    let n = 0;
    for (const first of pathClaimants) {
      for (const second of pathClaimants) {
        n++;
        const address = `2024/spot.${n}`;
        const label = `${first.name} then ${second.name} (${address})`;
        const firstPrepared = first.setup ? await first.setup(site, `${n}a`) : "";
        const secondPrepared = second.setup ? await second.setup(site, `${n}b`) : "";
        expect((await first.claim(site, address, firstPrepared)).status, label).toBe(first.status);
        const before = await snapshot(site);
        expectError(await second.claim(site, address, secondPrepared), 409, "CONFLICT", label);
        expect(await snapshot(site), label).toEqual(before);
      }
    }
  });

  it("a freed address can be claimed by any other kind", async () => {
    const site = await createTestSite();
    const col = await ok(site.call("POST", "/api/collections", { slug: "recycled", title: "C" }));
    await ok(site.call("DELETE", `/api/collections/${col.body.id}`), 200);
    const smc = await ok(site.call("POST", "/api/smart-collections", { slug: "recycled", title: "S" }));
    await ok(site.call("DELETE", `/api/smart-collections/${smc.body.id}`), 200);
    const url = await ok(
      site.call("POST", "/api/custom-urls", { path: "recycled", targetType: "redirect", toPath: "/" }),
    );
    await ok(site.call("DELETE", `/api/custom-urls/${url.body.id}`), 200);
    const post = await ok(site.call("POST", "/api/posts", { ...note, slug: "recycled" }));
    await ok(site.call("DELETE", `/api/posts/${post.body.id}`), 200);
    await ok(site.call("POST", "/api/collections", { slug: "recycled", title: "Again" }));
  });

  it("a deleted collection frees the addresses of its custom URL aliases", async () => {
    const site = await createTestSite();
    const col = await ok(site.call("POST", "/api/collections", { slug: "col-with-alias", title: "C" }));
    await ok(
      site.call("POST", "/api/custom-urls", {
        path: "col/alias",
        targetType: "collection",
        targetId: col.body.id,
      }),
    );
    await ok(site.call("DELETE", `/api/collections/${col.body.id}`), 200);
    expect((await site.call("GET", "/api/custom-urls")).body.customUrls).toEqual([]);
    await ok(
      site.call("POST", "/api/custom-urls", { path: "col/alias", targetType: "redirect", toPath: "/" }),
    );
  });
});

describe("concurrent claims of one address", () => {
  /** Every claimant `copies` times, all started at once: exactly one wins, the rest get 409. */
  async function race(site: TestSite, address: string, racers: Claimant[], copies: number): Promise<void> {
    const prepared: { claimant: Claimant; value: string }[] = [];
    let n = 0;
    for (const claimant of racers) {
      for (let i = 0; i < copies; i++) {
        n++;
        prepared.push({
          claimant,
          value: claimant.setup
            ? await claimant.setup(site, `race-${address}-${n}`.replace(/[/.]/g, "-"))
            : "",
        });
      }
    }
    const answers = await Promise.all(
      prepared.map(({ claimant, value }) => claimant.claim(site, address, value)),
    );
    const won = answers.filter((answer) => answer.status === 200 || answer.status === 201);
    expect(won, JSON.stringify(answers.map((a) => [a.status, a.body?.code]))).toHaveLength(1);
    expect(statusCounts(answers)[409]).toBe(answers.length - 1);
    for (const answer of answers.filter((a) => a.status === 409)) expect(answer.body.code).toBe("CONFLICT");
    const winner = prepared[answers.indexOf(won[0] as TestResponse)]?.claimant;
    const resolved = await site.call("GET", `/api/public/resolve?path=/${address}`);
    expect(resolved.body.kind).toBe(winner?.kind);
  }

  it("every claimant of a slug-shaped address at once: exactly one succeeds", async () => {
    const site = await createTestSite({ engineConfig: { poolSize: 12 } });
    await race(site, "contested", claimants, 3);
    await race(site, "contested-again", claimants, 3);
  });

  it("every path claimant of a multi-segment address at once: exactly one succeeds", async () => {
    const site = await createTestSite({ engineConfig: { poolSize: 12 } });
    await race(
      site,
      "2024/01/contested",
      claimants.filter((c) => c.takesPaths),
      5,
    );
  });
});
