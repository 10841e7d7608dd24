import * as z from "zod";
import { bytesParam } from "../shared/bytes.js";

/** A GitHub owner or repository name: letters, digits, `-`, `_` and `.`, not a dot segment. */
const githubName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, "Letters, digits, '-', '_' and '.' only")
  .refine((value) => value !== "." && value !== "..", "Not a name");

const httpUrl = (message: string) =>
  z
    .string()
    .max(2048)
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === "https:" || url.protocol === "http:";
      } catch {
        return false;
      }
    }, message);

/** Input of `githubSync.setup`. */
export const setupSyncInput = z.object({
  owner: githubName.describe("The repository's owner (user or organization)"),
  repo: githubName.describe("The repository's name"),
  branch: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9._/-]+$/, "Letters, digits, '.', '_', '-' and '/' only")
    .refine(
      (value) =>
        !value.startsWith("/") && !value.endsWith("/") && !value.endsWith(".") && !/\/\/|\.\./.test(value),
      "Not a branch name",
    )
    .default("main")
    .describe("The branch Quire writes to and reads pushes of (default main)"),
  token: z
    .string()
    .min(1)
    .max(1000)
    .regex(/^[\x21-\x7e]+$/, "A token is printable ASCII without spaces")
    .describe("A token that may read and write the repository's contents and manage its webhooks"),
  webhookUrl: httpUrl("An absolute http(s) URL").describe(
    "Where GitHub delivers pushes: this site's /api/github-sync/webhook as the internet reaches it",
  ),
  apiBaseUrl: httpUrl("An absolute http(s) URL")
    .default("https://api.github.com")
    .describe("The REST API's base URL (GitHub Enterprise Server: https://HOST/api/v3)"),
  debounceSeconds: z
    .number()
    .min(0)
    .max(3600)
    .default(10)
    .describe("Quiet time after the last write before the outbound sync commits (default 10)"),
});
export type SetupSyncInput = z.output<typeof setupSyncInput>;

/** Input of operations that take nothing. */
export const noInput = z.object({});

/**
 * Input of `githubSync.webhook`: the delivery's raw bytes and its request headers (names in lower
 * case). Over HTTP the route hands both over untouched; the signature is checked over these bytes.
 */
export const webhookInput = z.object({
  body: bytesParam.optional().describe("The delivery's raw body (base64 in JSON)"),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe(
      "The delivery's headers, lower-case names: x-hub-signature-256, x-github-event, x-github-delivery",
    ),
});

/** What `githubSync.status` answers (never the token or the secret). */
export const syncStatusOutput = z.object({
  connected: z.boolean(),
  owner: z.string().optional(),
  repo: z.string().optional(),
  branch: z.string().optional(),
  apiBaseUrl: z.string().optional(),
  webhookUrl: z.string().optional(),
  hookId: z.number().int().nullable().optional(),
  debounceSeconds: z.number().optional(),
  lastSyncedCommit: z.string().nullable().optional().describe("The last commit the outbound sync wrote"),
  lastSyncedAt: z.number().int().nullable().optional().describe("Unix seconds"),
  lastError: z
    .string()
    .nullable()
    .optional()
    .describe("Why the last outbound sync failed, until one succeeds"),
  lastErrorAt: z.number().int().nullable().optional().describe("Unix seconds"),
  createdAt: z.number().int().optional().describe("Unix seconds"),
});
export type SyncStatus = z.output<typeof syncStatusOutput>;

/** What `githubSync.push` answers. */
export const pushSyncOutput = z.object({
  commit: z.string().nullable().describe("The commit written; null when the repository already matched"),
  changed: z.number().int().describe("Files written or replaced"),
  removed: z.number().int().describe("Files of an earlier sync removed (deleted posts)"),
});
export type PushResult = z.output<typeof pushSyncOutput>;

/** What `githubSync.webhook` answers for a delivery it accepted. */
export const webhookOutput = z.object({
  status: z
    .enum(["pong", "applied", "skipped", "duplicate", "ignored", "deferred"])
    .describe("What was done with the delivery (docs/github-sync.md § Answers)"),
  event: z.string(),
  reason: z.string().optional(),
  updated: z.array(z.string()).optional().describe("IDs of the posts the push changed"),
  unchanged: z.number().int().optional(),
  rejected: z
    .array(z.object({ path: z.string(), reason: z.string() }))
    .optional()
    .describe("Files of the push that named a post but could not be applied"),
});
export type WebhookResult = z.output<typeof webhookOutput>;
