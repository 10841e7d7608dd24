/**
 * A `raw` route (a webhook) through the client: the bytes and the sender's headers are relayed as
 * they are, so a signature computed over the bytes still matches. Against the Fetch handler in
 * process and a local stand-in of GitHub's REST API (the code host is unreachable from tests).
 */
import { signGithubDelivery } from "@quire/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type GithubStandIn,
  startGithubStandIn,
} from "../../core/src/github-sync/testing/github-stand-in.js";
import { createTestSite } from "../../http-adapter/test/helpers.js";
import { createClient, isQuireError } from "../src/index.js";

let github: GithubStandIn;
beforeAll(async () => {
  github = await startGithubStandIn();
});
afterAll(() => github.close());

it("relays a webhook delivery's bytes and headers: a signed ping answers pong, a forged one 401", async () => {
  const site = await createTestSite();
  const client = createClient({
    baseUrl: "http://localhost",
    token: "dev-token",
    fetch: (input, init) => site.handler(new Request(input, init)),
  });
  github.createRepo("client", "site", { token: "ghp_client" });
  await client.githubSync.setup({
    owner: "client",
    repo: "site",
    token: "ghp_client",
    webhookUrl: "https://blog.example/api/github-sync/webhook",
    apiBaseUrl: github.url,
  });
  const secret = [...github.repo("client", "site").hooks.values()][0]?.secret ?? "";
  const body = new TextEncoder().encode(JSON.stringify({ zen: "Approachable is better than simple." }));
  const headers = {
    "x-github-event": "ping",
    "x-github-delivery": "0b9a3f3e-0000-4000-8000-000000000001",
    "x-hub-signature-256": await signGithubDelivery(secret, body),
    host: "example.org",
  };
  expect(await client.githubSync.webhook({ body, headers })).toEqual({ status: "pong", event: "ping" });
  const forged = await client.githubSync
    .webhook({ body, headers: { ...headers, "x-hub-signature-256": `sha256=${"0".repeat(64)}` } })
    .catch((err: unknown) => err);
  expect(isQuireError(forged) && forged.code).toBe("UNAUTHORIZED");
});
