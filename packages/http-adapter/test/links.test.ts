import { createTestEngine } from "@quire/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { apiLinks, createHandler } from "../src/index.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(() => cleanup?.());

describe("links: the addresses core writes come from the adapter that serves them", () => {
  it("apiLinks gives in-process answers the handler's addresses, and the handler serves them", async () => {
    const site = await createTestEngine({ links: apiLinks("/blog/"), settings: { sitePathPrefix: "/blog" } });
    cleanup = site.cleanup;
    const post = await site.engine.posts.create({
      format: "note",
      attachments: [{ type: "text", content: "# Notes" }],
    });
    const attachment = post.attachments[0] as { id: string; contentUrl?: string };
    expect(attachment.contentUrl).toBe(`/blog/api/attachments/${attachment.id}/content`);

    const handler = createHandler(site.engine, { devApiToken: "t", clientAddress: () => "127.0.0.1" });
    const response = await handler(
      new Request(`http://localhost${attachment.contentUrl}`, { headers: { authorization: "Bearer t" } }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: attachment.id, content: "# Notes" });
  });
});
