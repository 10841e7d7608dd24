import * as z from "zod";
import { ownerCaller } from "../caller.js";
import type { EngineContext } from "../deps.js";
import { EngineError, invalidField, isEngineError } from "../errors.js";
import { defineOperation, execute, parseInput } from "../operation.js";
import { findPost } from "../posts/post-query.js";
import { updatePost } from "../posts/update-post.js";
import { type ByteSource, bytesUpTo } from "../storage.js";
import { acceptedOnly } from "./accepted.js";
import { type ConnectionRow, readConnection, repoOf, syncMarker } from "./connection.js";
import { parseBundlePage } from "./front-matter.js";
import { GithubError, getFileContent } from "./github-client.js";
import { type WebhookResult, webhookInput, webhookOutput } from "./github-sync-schemas.js";
import { verifySignature } from "./signature.js";

/** Largest delivery read, in bytes (GitHub caps its payloads at 25 MB; a push of 20 commits is far below). */
export const maxWebhookBytes = 5 * 1024 * 1024;
/** Most post pages one push may change; more are rejected, unread. */
const maxPagesPerPush = 500;

/**
 * GitHub's push webhook (docs/github-sync.md § Inbound pushes). In order: no connection → 404; a
 * body over 5 MiB → 400; a missing, malformed or wrong `X-Hub-Signature-256` → 401 (checked over
 * the raw bytes in constant time); missing event or delivery headers, or a body that is not the
 * event's JSON → 400. Then `ping` → 200 pong; another event → 202 ignored; a push → claimed by its
 * delivery id and head commit (a replay → 200 duplicate), skipped when its head commit is Quire's
 * own (marker), else the changed post pages are read at the head commit and applied to the posts
 * they name. Nothing is written for a refused delivery.
 */
export const receiveWebhook = defineOperation({
  id: "githubSync.webhook",
  access: "public",
  description: "Receives a signed GitHub webhook delivery: a push updates the existing posts its pages name.",
  hints: {},
  input: webhookInput,
  output: webhookOutput,
  run: async (ctx, input): Promise<WebhookResult> => {
    const row = await readConnection(ctx.db);
    if (!row) throw new EngineError("NOT_FOUND", "No code-host sync is set up on this site");
    const headers = Object.fromEntries(
      Object.entries(input.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    // A declared size over the limit is refused before a byte is read.
    if (Number(headers["content-length"] ?? 0) > maxWebhookBytes)
      throw invalidField("body", `A delivery may be at most ${maxWebhookBytes} bytes`);
    const body = await readLimited(input.body);
    if (!(await verifySignature(row.webhook_secret, body, headers["x-hub-signature-256"])))
      throw new EngineError("UNAUTHORIZED", "X-Hub-Signature-256 is missing or does not match this delivery");
    const event = headers["x-github-event"]?.trim() ?? "";
    const delivery = headers["x-github-delivery"]?.trim() ?? "";
    if (!/^[\w.-]{1,100}$/.test(event))
      throw invalidField("headers.x-github-event", "Required: the event's name");
    if (!/^[\w-]{1,100}$/.test(delivery))
      throw invalidField("headers.x-github-delivery", "Required: the delivery's id");
    const payload = parseJson(formPayload(body, headers["content-type"]));
    if (event === "ping") return { status: "pong", event };
    if (event !== "push")
      return acceptedOnly({ status: "ignored", event, reason: "Only push events are read" });
    return receivePush(ctx, row, delivery, payload);
  },
});

/** The part of GitHub's push payload the sync reads. @see https://docs.github.com/en/webhooks/webhook-events-and-payloads#push */
const pushPayload = z.object({
  ref: z.string().max(1000),
  after: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "A commit id"),
  deleted: z.boolean().optional(),
  repository: z.object({ full_name: z.string().max(300) }).optional(),
  head_commit: z
    .object({ id: z.string().max(100), message: z.string() })
    .nullable()
    .optional(),
  commits: z
    .array(
      z.object({
        added: z.array(z.string().max(4096)).optional(),
        modified: z.array(z.string().max(4096)).optional(),
      }),
    )
    .max(10_000)
    .default([]),
});

async function receivePush(
  ctx: EngineContext,
  row: ConnectionRow,
  delivery: string,
  raw: unknown,
): Promise<WebhookResult> {
  const push = parseInput(pushPayload, raw);
  const event = "push";
  if (push.ref !== `refs/heads/${row.branch}`)
    return acceptedOnly({
      status: "ignored",
      event,
      reason: `A push to ${push.ref}, not refs/heads/${row.branch}`,
    });
  const fullName = `${row.owner}/${row.repo}`.toLowerCase();
  if (push.repository && push.repository.full_name.toLowerCase() !== fullName)
    return acceptedOnly({
      status: "ignored",
      event,
      reason: `A push to ${push.repository.full_name}, not ${fullName}`,
    });
  if (push.deleted || /^0+$/.test(push.after))
    return acceptedOnly({ status: "ignored", event, reason: "The branch was deleted" });

  const ownCommit = push.head_commit?.message.includes(syncMarker) ?? false;
  if (!(await claimDelivery(ctx, delivery, push.after, ownCommit ? "skipped" : "applying")))
    return { status: "duplicate", event, reason: "This delivery or its head commit was received before" };
  if (ownCommit)
    return { status: "skipped", event, reason: `The head commit is Quire's own (${syncMarker})` };

  const paths = new Set<string>();
  for (const commit of push.commits)
    for (const path of [...(commit.added ?? []), ...(commit.modified ?? [])])
      if (isPostPage(path)) paths.add(path);
  const rejected: { path: string; reason: string }[] = [];
  const pages: { path: string; text: string }[] = [];
  const repo = repoOf(row);
  try {
    for (const path of paths) {
      if (pages.length >= maxPagesPerPush) {
        rejected.push({ path, reason: `More than ${maxPagesPerPush} pages in one push` });
        continue;
      }
      const bytes = await getFileContent(repo, path, push.after);
      if (bytes === null) continue; // removed by a later commit of the push
      pages.push({ path, text: new TextDecoder().decode(bytes) });
    }
  } catch (err) {
    if (!(err instanceof GithubError)) throw err;
    // The code host did not answer: nothing applied, the claim released, so a redelivery retries.
    await releaseDelivery(ctx, delivery);
    ctx.logger.warn("github sync: a push could not be read from the code host", { error: err.message });
    return acceptedOnly({
      status: "deferred",
      event,
      reason: "The code host could not be read; redeliver later",
    });
  }

  const updated: string[] = [];
  let unchanged = 0;
  try {
    for (const page of pages) {
      const outcome = await applyPage(ctx, page.text);
      if (outcome === "unchanged") unchanged++;
      else if (outcome.startsWith("pst_")) updated.push(outcome);
      else rejected.push({ path: page.path, reason: outcome });
    }
  } catch (err) {
    await releaseDelivery(ctx, delivery);
    throw err;
  }
  await ctx.db
    .updateTable("github_sync_deliveries")
    .set({ outcome: "applied" })
    .where("delivery_id", "=", delivery)
    .execute();
  return { status: "applied", event, updated, unchanged, rejected };
}

/** A post's page of the Hugo tree: a Thread root's `_index.md` or a reply's `index.md`. */
function isPostPage(path: string): boolean {
  return (
    /^content\/threads\/[^/]+\/_index\.md$/.test(path) ||
    /^content\/threads\/[^/]+\/[^/]+\/index\.md$/.test(path)
  );
}

/**
 * One page applied to the post it names: only the fields that differ from what the export writes
 * for the post now (body, title, link and quote fields, rating), through `posts.update` with all
 * its rules. Answers the post's id when it changed, "unchanged", or why it was not applied.
 */
async function applyPage(ctx: EngineContext, text: string): Promise<string> {
  const page = parseBundlePage(text);
  if ("error" in page) return page.error;
  const params = page.front.params;
  const id =
    typeof params === "object" && params !== null ? (params as Record<string, unknown>).id : undefined;
  if (typeof id !== "string" || !/^pst_[A-Za-z0-9]+$/.test(id)) return "The page names no post (params.id)";
  const post = await findPost(ctx.db, id);
  if (!post) return `No post ${id} (a push never creates posts)`;
  const p = params as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  const title = page.front.title;
  // A quote has no title of its own: the page's title is the one shown, derived from the quote.
  if (title !== undefined && post.format !== "quote") {
    if (title !== null && typeof title !== "string") return "title: not text";
    const shown = post.display_title ?? post.title ?? "";
    if ((title ?? "") !== shown) changes.title = title === null || title === "" ? null : title;
  }
  const trimEnd = (value: string) => value.replace(/\n+$/, "");
  if (trimEnd(page.body) !== trimEnd(post.body_markdown ?? "")) changes.bodyMarkdown = trimEnd(page.body);
  const fields = [
    ["url", post.url],
    ["sourceName", post.source_name],
    ["sourceUrl", post.source_url],
    ["quoteText", post.quote_text],
    ["rating", post.rating],
  ] as const;
  for (const [field, current] of fields) {
    if (!(field in p)) continue;
    const value = p[field] === "" ? null : p[field];
    if (value !== (current ?? null)) changes[field] = value;
  }
  if (Object.keys(changes).length === 0) return "unchanged";
  try {
    await execute(ctx, updatePost, { ...changes, id }, ownerCaller);
  } catch (err) {
    if (!isEngineError(err)) throw err;
    return err.message;
  }
  return id;
}

/**
 * Claims a delivery: one row per `X-GitHub-Delivery` id and per head commit, inserted only when
 * neither is there yet (both are unique keys, so two deliveries racing cannot both claim).
 */
async function claimDelivery(
  ctx: EngineContext,
  delivery: string,
  head: string,
  outcome: string,
): Promise<boolean> {
  const result = await ctx.db
    .insertInto("github_sync_deliveries")
    .values({
      delivery_id: delivery,
      event: "push",
      head_commit: head,
      outcome,
      received_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

async function releaseDelivery(ctx: EngineContext, delivery: string): Promise<void> {
  await ctx.db.deleteFrom("github_sync_deliveries").where("delivery_id", "=", delivery).execute();
}

/** The body's bytes, refused (400) past {@link maxWebhookBytes} before reading the rest. */
async function readLimited(source: ByteSource | undefined): Promise<Uint8Array> {
  if (source === undefined) return new Uint8Array(0);
  const bytes = await bytesUpTo(source, maxWebhookBytes);
  if (!bytes) throw invalidField("body", `A delivery may be at most ${maxWebhookBytes} bytes`);
  return bytes;
}

/**
 * A hook registered with content type `application/x-www-form-urlencoded` sends the JSON as the
 * `payload` field; the signature still covers the bytes as sent. Other bodies are read as JSON.
 */
function formPayload(body: Uint8Array, contentType: string | undefined): Uint8Array {
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType?.trim() ?? "")) return body;
  const payload = new URLSearchParams(new TextDecoder().decode(body)).get("payload");
  if (payload === null) throw invalidField("body", "A form delivery carries its JSON in the payload field");
  return new TextEncoder().encode(payload);
}

function parseJson(body: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw invalidField("body", "Not UTF-8 text");
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw invalidField("body", "Not a JSON object");
    return value;
  } catch (err) {
    if (isEngineError(err)) throw err;
    throw invalidField("body", "Not JSON (register the hook with content type application/json)");
  }
}
