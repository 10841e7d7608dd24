/**
 * The client's types are derived from the engine's operations and the route table; these checks
 * run under `pnpm typecheck` (the `@ts-expect-error` lines fail it when a type stops refusing).
 */
import type { MediaRecord, PostView } from "@quire/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { createClient, type PageItem, type QuireClient } from "../src/index.js";

describe("the client's types", () => {
  const client: QuireClient = createClient({
    baseUrl: "http://localhost:1",
    fetch: async () => new Response(),
  });

  it("builds a function for every routed operation and an iterator for every cursor list", () => {
    expect(typeof client.posts.create).toBe("function");
    expect(typeof client.threads.iterate).toBe("function");
    expect(typeof client.threads.iteratePosts).toBe("function");
    expect(typeof client.publicThreads.iteratePosts).toBe("function");
    expect(typeof client.media.iterate).toBe("function");
    expect(typeof client.customUrls.iterate).toBe("function");
    expect(typeof client.smartCollections.iterateThreads).toBe("function");
    expect(typeof client.media.upload).toBe("function");
    // No iterator for a list without a cursor.
    expect((client.navItems as Record<string, unknown>).iterate).toBeUndefined();
  });

  it("takes the schema's input and answers the operation's output", () => {
    type CreateInput = Parameters<typeof client.posts.create>[0];
    expectTypeOf<{ format: "note"; bodyMarkdown: string }>().toMatchTypeOf<CreateInput>();
    expectTypeOf(client.posts.get).returns.resolves.toEqualTypeOf<PostView>();
    expectTypeOf(client.media.get).returns.resolves.toEqualTypeOf<MediaRecord>();
    expectTypeOf<PageItem<"media.list">>().toEqualTypeOf<MediaRecord>();
    expectTypeOf(client.media.iterate).returns.toEqualTypeOf<AsyncGenerator<MediaRecord, void, undefined>>();
    expectTypeOf(client.uploads.putBody).parameter(0).toHaveProperty("body");
    const never = () => {
      // @ts-expect-error a post needs its id
      void client.posts.get({});
      // @ts-expect-error the Thread's posts need the Thread
      void client.threads.iteratePosts();
      // @ts-expect-error the format is one of the schema's values
      void client.posts.create({ format: "poem" });
      // @ts-expect-error no such operation
      void client.posts.publishEverything;
      // @ts-expect-error a raw body takes bytes, not base64 text
      void client.uploads.putBody({ id: "upl_x", body: "aGVsbG8=" });
    };
    expect(typeof never).toBe("function");
  });
});
