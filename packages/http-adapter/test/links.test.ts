import { describe, expect, it } from "vitest";
import { apiLinks } from "../src/index.js";
import { createTestSite } from "./helpers.js";

describe("links: the addresses core writes come from the adapter that serves them", () => {
  it("apiLinks gives in-process answers the handler's addresses, and the handler serves them", async () => {
    const site = await createTestSite({
      engineConfig: { links: apiLinks("/blog/"), settings: { sitePathPrefix: "/blog" } },
    });
    const post = await site.engine.posts.create({
      format: "note",
      attachments: [{ type: "text", content: "# Notes" }],
    });
    const attachment = post.attachments[0] as { id: string; contentUrl?: string };
    expect(attachment.contentUrl).toBe(`/blog/api/attachments/${attachment.id}/content`);

    const response = await site.call("GET", attachment.contentUrl as string);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: attachment.id, content: "# Notes" });
  });
});
