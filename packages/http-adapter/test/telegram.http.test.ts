/**
 * The chat-bot webhook and its setup, against a local stand-in of the Telegram Bot API
 * (telegram-bot-api.ts: getMe, setWebhook, deleteWebhook, getFile, file download, sendMessage).
 * Updates marked "webhooks guide" are the sample updates of Telegram's own guide
 * (https://core.telegram.org/bots/webhooks#testing-your-bot-with-updates), as published there;
 * the photo, video and album updates are built field by field from the Bot API reference
 * (https://core.telegram.org/bots/api#message, #photosize, #video), which gives no sample.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "./helpers.js";
import { type BotApiStandIn, startBotApiStandIn } from "./telegram-bot-api.js";
import {
  createFsMediaSite,
  jpegFile,
  type MediaSite,
  mp4File,
  pdfFile,
  pngFile,
} from "./uploads-fixtures.js";

let api: BotApiStandIn;
let site: MediaSite;
const webhookUrl = "https://blog.example/api/telegram";

beforeEach(async () => {
  api = await startBotApiStandIn();
  site = await createFsMediaSite();
});
afterEach(async () => {
  await api.close();
});

async function connect(): Promise<string> {
  const res = await site.call("PUT", "/api/telegram/connection", {
    botToken: api.token,
    webhookUrl,
    apiBaseUrl: api.url,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const set = api.calls.findLast((c) => c.method === "setWebhook");
  return String(set?.params.secret_token);
}

/** Delivers an update as Telegram does: POST, JSON, the secret header, no other auth. */
function deliver(update: unknown, secret: string | undefined, extra: Record<string, string> = {}) {
  return site.send("POST", "/api/telegram", typeof update === "string" ? update : JSON.stringify(update), {
    authorization: "",
    "content-type": "application/json",
    ...(secret === undefined ? {} : { "x-chat-bot-api-secret-token": secret }),
    ...extra,
  });
}

async function bindCode(): Promise<string> {
  const res = await site.call("POST", "/api/telegram/bind-codes");
  expect(res.status).toBe(201);
  return res.body.code as string;
}

const chat = { last_name: "Test Lastname", id: 1111111, first_name: "Test", username: "Test" };
let nextUpdateId = 10000;

/** A message update in the shape of the webhooks guide's samples, with `fields` in its message. */
function messageUpdate(fields: Record<string, unknown>, updateId = nextUpdateId++) {
  return {
    update_id: updateId,
    message: { date: 1441645532, chat, message_id: 1365, from: { ...chat }, ...fields },
  };
}

async function bind(secret: string) {
  const code = await bindCode();
  const res = await deliver(
    messageUpdate({ text: `/start ${code}`, entities: [{ type: "bot_command", offset: 0, length: 6 }] }),
    secret,
  );
  expect(res.body.status).toBe("bound");
}

async function posts() {
  return (await site.engine.posts.list({})).posts;
}

describe("setup", () => {
  it("connects: checks the token, registers the webhook with a random secret, never shows either", async () => {
    const secret = await connect();
    expect(api.calls.map((c) => c.method)).toEqual(["getMe", "setWebhook"]);
    const set = api.calls[1]?.params as Record<string, unknown>;
    expect(set.url).toBe(webhookUrl);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{20,256}$/);
    expect(set.allowed_updates).toEqual(["message", "channel_post"]);
    expect(set.max_connections).toBe(1);
    const status = await site.call("GET", "/api/telegram/status");
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      connected: true,
      botUsername: "quire_test_bot",
      webhookUrl,
      apiBaseUrl: api.url,
      chats: [],
    });
    expect(JSON.stringify(status.body)).not.toContain(api.token);
    expect(JSON.stringify(status.body)).not.toContain(secret);
    // A second connect makes a new secret: the old one stops working.
    const again = await connect();
    expect(again).not.toBe(secret);
    expectError(await deliver(messageUpdate({ text: "x" }), secret), 401, "UNAUTHORIZED");
  });

  it("refuses a token Telegram refuses (400 botToken), a non-HTTPS webhook (400 webhookUrl), an unreachable API (500)", async () => {
    const wrong = await site.call("PUT", "/api/telegram/connection", {
      botToken: "999:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      webhookUrl,
      apiBaseUrl: api.url,
    });
    expectError(wrong, 400, "VALIDATION_ERROR");
    expect(wrong.body.details.fieldErrors).toHaveProperty("botToken");
    const malformed = await site.call("PUT", "/api/telegram/connection", {
      botToken: "nope",
      webhookUrl,
      apiBaseUrl: api.url,
    });
    expect(malformed.body.details.fieldErrors).toHaveProperty("botToken");
    const http = await site.call("PUT", "/api/telegram/connection", {
      botToken: api.token,
      webhookUrl: "http://blog.example/api/telegram",
      apiBaseUrl: api.url,
    });
    expectError(http, 400, "VALIDATION_ERROR");
    expect(http.body.details.fieldErrors).toHaveProperty("webhookUrl");
    await api.close();
    expectError(
      await site.call("PUT", "/api/telegram/connection", {
        botToken: api.token,
        webhookUrl,
        apiBaseUrl: api.url,
      }),
      500,
      "EXTERNAL_SERVICE_ERROR",
    );
    expect((await site.call("GET", "/api/telegram/status")).body.connected).toBe(false);
    api = await startBotApiStandIn();
  });

  it("needs the owner; bind codes need a connected bot", async () => {
    expectError(
      await site.call("GET", "/api/telegram/status", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
    expectError(await site.call("POST", "/api/telegram/bind-codes"), 409, "CONFLICT");
    await connect();
    const code = await site.call("POST", "/api/telegram/bind-codes");
    expect(code.body).toMatchObject({
      command: `/start ${code.body.code}`,
      link: `https://t.me/quire_test_bot?start=${code.body.code}`,
    });
    expect(code.body.code).toMatch(/^[A-HJ-NP-Z2-9]{10}$/);
  });

  it("disconnects: deletes the webhook, forgets the bot and its chats; deliveries then answer 404", async () => {
    const secret = await connect();
    await bind(secret);
    const res = await site.call("DELETE", "/api/telegram/connection");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ connected: false, chats: [], pendingBindCodes: 0 });
    expect(api.calls.at(-1)?.method).toBe("deleteWebhook");
    expectError(await deliver(messageUpdate({ text: "after" }), secret), 404, "NOT_FOUND");
    expect((await site.call("DELETE", "/api/telegram/connection")).status).toBe(200);
  });
});

describe("webhook: refusals write nothing", () => {
  it("404 with no bot; 401 without or with a wrong secret, PUBLIC_API_ENABLED=false or not", async () => {
    expectError(await deliver(messageUpdate({ text: "hi" }), "anything"), 404, "NOT_FOUND");
    const secret = await connect();
    await bind(secret);
    const before = api.calls.length;
    expectError(await deliver(messageUpdate({ text: "hi" }), undefined), 401, "UNAUTHORIZED");
    expectError(await deliver(messageUpdate({ text: "hi" }), `${secret.slice(0, -1)}x`), 401, "UNAUTHORIZED");
    expectError(await deliver(messageUpdate({ text: "hi" }), ""), 401, "UNAUTHORIZED");
    // A bearer token is no secret.
    expectError(
      await deliver(messageUpdate({ text: "hi" }), undefined, { authorization: "Bearer dev-token" }),
      401,
      "UNAUTHORIZED",
    );
    expect(await posts()).toEqual([]);
    expect(api.calls.length).toBe(before);
    await site.call("PUT", "/api/settings", { PUBLIC_API_ENABLED: "false" });
    expect((await deliver(messageUpdate({ text: "still open" }), secret)).body.status).toBe("published");
  });

  it("400 for a body that is not an Update: not JSON, not an object, no update_id, a malformed message, over 1 MiB", async () => {
    const secret = await connect();
    await bind(secret);
    const sentBefore = api.sent().length;
    for (const [label, body, field] of [
      ["not JSON", "{update_id: 1", "body"],
      ["empty", "", "body"],
      ["array", "[1,2]", "body"],
      ["no update_id", JSON.stringify({ message: { text: "x" } }), "update_id"],
      ["negative update_id", JSON.stringify({ update_id: -5, message: {} }), "update_id"],
      [
        "message without chat",
        JSON.stringify({ update_id: 1, message: { message_id: 1, text: "x" } }),
        "chat",
      ],
      ["text not a string", JSON.stringify(messageUpdate({ text: 42 })), "text"],
      ["huge", JSON.stringify(messageUpdate({ text: "x".repeat(1024 * 1024) })), "body"],
    ] as const) {
      const res = await deliver(body, secret);
      expectError(res, 400, "VALIDATION_ERROR", label);
      expect(Object.keys(res.body.details?.fieldErrors ?? {}), label).toContain(field);
    }
    expect(await posts()).toEqual([]);
    expect(api.sent().length).toBe(sentBefore);
    expect((await site.call("GET", "/api/telegram/status")).body.chats).toHaveLength(1);
  });

  it("200 ignored for update kinds it does not read (webhooks guide: edited message, inline and callback queries)", async () => {
    const secret = await connect();
    await bind(secret);
    const sentBefore = api.sent().length;
    const updates = [
      // webhooks guide: "Edited message"
      {
        update_id: 10000,
        edited_message: {
          date: 1441645532,
          chat,
          message_id: 1365,
          from: chat,
          text: "Edited text",
          edit_date: 1441646600,
        },
      },
      // webhooks guide: "Inline query"
      { update_id: 10001, inline_query: { id: 134567890097, from: chat, query: "inline query", offset: "" } },
      // webhooks guide: "Callback query"
      {
        update_id: 10002,
        callback_query: {
          id: "4382bfdwdsb323b2d9",
          from: chat,
          data: "Data from button callback",
          inline_message_id: "1234csdbsk4839",
        },
      },
    ];
    for (const update of updates) {
      const res = await deliver(update, secret);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, status: "ignored", updateId: update.update_id });
    }
    expect(await posts()).toEqual([]);
    expect(api.sent().length).toBe(sentBefore);
  });

  it("an unbound chat's messages are ignored, written nowhere and not answered", async () => {
    await connect();
    const secret = String(api.calls.findLast((c) => c.method === "setWebhook")?.params.secret_token);
    // webhooks guide: "Message with text"
    const res = await deliver(
      { update_id: 10000, message: { date: 1441645532, chat, message_id: 1365, from: chat, text: "/start" } },
      secret,
    );
    expect(res.body.status).toBe("replied");
    expect(api.sent()).toEqual([{ chat_id: chat.id, text: expect.stringContaining("/start") }]);
    const plain = await deliver(messageUpdate({ text: "Hello" }), secret);
    expect(plain.body).toMatchObject({ status: "ignored", reason: expect.stringContaining("not bound") });
    expect(await posts()).toEqual([]);
    expect(api.sent()).toHaveLength(1);
  });
});

describe("binding a chat", () => {
  it("binds with a valid code once; an unknown, used or expired code binds nothing", async () => {
    const secret = await connect();
    const code = await bindCode();
    const wrong = await deliver(messageUpdate({ text: "/start WRONGCODE1" }), secret);
    expect(wrong.body).toMatchObject({ status: "replied", reason: "Unknown or expired bind code" });
    expect((await site.call("GET", "/api/telegram/status")).body.chats).toEqual([]);
    // Lower case and the bot's name in the command are accepted.
    const ok = await deliver(messageUpdate({ text: `/start@quire_test_bot ${code.toLowerCase()}` }), secret);
    expect(ok.body.status).toBe("bound");
    expect(api.sent().at(-1)?.text).toContain("Connected");
    const status = (await site.call("GET", "/api/telegram/status")).body;
    expect(status.chats).toEqual([
      { chatId: "1111111", type: "private", title: "Test Test Lastname", boundAt: expect.any(Number) },
    ]);
    expect(status.pendingBindCodes).toBe(0);
    // The same code from another chat: used up.
    const other = { id: 2222222, type: "private", first_name: "Other" };
    const reused = await deliver(
      { update_id: nextUpdateId++, message: { message_id: 1, date: 1, chat: other, text: `/start ${code}` } },
      secret,
    );
    expect(reused.body.status).toBe("replied");
    // An expired code (15 minutes).
    const late = await bindCode();
    site.clock.advance(15 * 60 + 1);
    const expired = await deliver(
      { update_id: nextUpdateId++, message: { message_id: 2, date: 1, chat: other, text: `/start ${late}` } },
      secret,
    );
    expect(expired.body.status).toBe("replied");
    expect((await site.call("GET", "/api/telegram/status")).body.chats).toHaveLength(1);
  });
});

describe("publishing", () => {
  it("text with entities becomes a published note in Markdown (webhooks guide: message with entities)", async () => {
    const secret = await connect();
    await bind(secret);
    const res = await deliver(
      messageUpdate({
        text: "Bold and italics",
        entities: [
          { type: "italic", offset: 9, length: 7 },
          { type: "bold", offset: 0, length: 4 },
        ],
      }),
      secret,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, status: "published", postId: expect.stringMatching(/^pst_/) });
    const post = await site.engine.posts.get({ id: res.body.postId, content: "markdown" });
    expect(post).toMatchObject({
      format: "note",
      status: "published",
      visibility: "public",
      bodyMarkdown: "**Bold** and *italics*",
    });
    const html = await site.engine.posts.get({ id: res.body.postId });
    expect(html.bodyHtml).toContain("<strong>Bold</strong> and <em>italics</em>");
  });

  it("a redelivered update_id is a duplicate: one post", async () => {
    const secret = await connect();
    await bind(secret);
    const update = messageUpdate({ text: "Once" });
    expect((await deliver(update, secret)).body.status).toBe("published");
    const again = await deliver(update, secret);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ok: true, status: "duplicate", updateId: update.update_id });
    const together = await Promise.all([
      deliver(messageUpdate({ text: "Twice" }, 77), secret),
      deliver(messageUpdate({ text: "Twice" }, 77), secret),
    ]);
    // One publishes; the other finds the update claimed: done (200 duplicate) or, while the first
    // is still at work, 409 so that Telegram delivers it again later.
    const outcomes = together.map((r) => (r.status === 409 ? "409" : r.body.status)).sort();
    expect(outcomes[1]).toBe("published");
    expect(["409", "duplicate"]).toContain(outcomes[0]);
    expect((await posts()).length).toBe(2);
    expect((await deliver(messageUpdate({ text: "Twice" }, 77), secret)).body.status).toBe("duplicate");
    expect((await posts()).length).toBe(2);
  });

  it("a document becomes a note with the file through the upload path and the caption (webhooks guide: document message)", async () => {
    const secret = await connect();
    await bind(secret);
    const pdf = pdfFile();
    api.addFile("AwADBAADbXXXXXXXXXXXGBdhD2l6_XX", pdf, "documents/file_7.pdf");
    const res = await deliver(
      messageUpdate({
        document: {
          file_id: "AwADBAADbXXXXXXXXXXXGBdhD2l6_XX",
          file_name: "Testfile.pdf",
          mime_type: "application/pdf",
          file_size: pdf.length,
        },
        caption: "The report, see https://example.com/a",
        caption_entities: [{ type: "url", offset: 16, length: 21 }],
      }),
      secret,
    );
    expect(res.body.status, JSON.stringify(res.body)).toBe("published");
    const post = await site.engine.posts.get({ id: res.body.postId, content: "markdown" });
    expect(post.bodyMarkdown).toBe("The report, see <https://example.com/a>");
    expect(post.attachments).toHaveLength(1);
    expect(post.attachments[0]).toMatchObject({
      type: "media",
      mimeType: "application/pdf",
      originalName: "Testfile.pdf",
      size: pdf.length,
    });
    const stored = await site.download((post.attachments[0] as { url: string }).url);
    expect(new Uint8Array(await stored.arrayBuffer())).toEqual(pdf);
    // Without a caption: a note with the file only.
    const bare = await deliver(
      messageUpdate({ document: { file_id: "AwADBAADbXXXXXXXXXXXGBdhD2l6_XX" } }),
      secret,
    );
    expect(bare.body.status, JSON.stringify(bare.body)).toBe("published");
    const barePost = await site.engine.posts.get({ id: bare.body.postId, content: "markdown" });
    expect(barePost.bodyMarkdown ?? null).toBeNull();
    expect(barePost.attachments).toHaveLength(1);
    expect(api.calls.filter((c) => c.method === "getFile").map((c) => c.params.file_id)).toEqual([
      "AwADBAADbXXXXXXXXXXXGBdhD2l6_XX",
      "AwADBAADbXXXXXXXXXXXGBdhD2l6_XX",
    ]);
  });

  it("a photo takes its largest size; a video keeps its name; an album becomes one post", async () => {
    const secret = await connect();
    await bind(secret);
    api.addFile("small", jpegFile(90, 60), "photos/file_1.jpg");
    api.addFile("large", jpegFile(900, 600), "photos/file_2.jpg");
    api.addFile("second", pngFile(40, 40), "photos/file_3.jpg");
    api.addFile("clip", mp4File(), "videos/file_4.mp4");
    const photo = await deliver(
      messageUpdate({
        photo: [
          { file_id: "small", file_unique_id: "s", width: 90, height: 60, file_size: 2048 },
          { file_id: "large", file_unique_id: "l", width: 900, height: 600, file_size: 2048 },
        ],
        caption: "Sunset",
      }),
      secret,
    );
    expect(photo.body.status).toBe("published");
    const photoPost = await site.engine.posts.get({ id: photo.body.postId });
    expect(photoPost.attachments[0]).toMatchObject({ mimeType: "image/jpeg", width: 900, height: 600 });

    // An album: two messages with one media_group_id, the caption on the first.
    const first = await deliver(
      messageUpdate({
        media_group_id: "13530437450964423",
        photo: [{ file_id: "large", file_unique_id: "l", width: 900, height: 600 }],
        caption: "Two *pictures*",
        caption_entities: [],
      }),
      secret,
    );
    const second = await deliver(
      messageUpdate({
        media_group_id: "13530437450964423",
        message_id: 1366,
        video: { file_id: "clip", file_name: "clip.mp4", mime_type: "video/mp4" },
      }),
      secret,
    );
    expect(first.body.status).toBe("published");
    expect(second.body).toMatchObject({ status: "added", postId: first.body.postId });
    const album = await site.engine.posts.get({ id: first.body.postId, content: "markdown" });
    expect(album.bodyMarkdown).toBe("Two \\*pictures\\*");
    expect(album.attachments.map((a) => (a as { mimeType: string }).mimeType)).toEqual([
      "image/jpeg",
      "video/mp4",
    ]);
    expect((album.attachments[1] as { originalName: string }).originalName).toBe("clip.mp4");
    expect((await posts()).length).toBe(2);
  });

  it("an album held by another delivery answers 409 and lets go of the update; its lease runs out", async () => {
    const secret = await connect();
    await bind(secret);
    api.addFile("large", jpegFile(900, 600), "photos/file_2.jpg");
    const now = site.clock.now();
    // Another delivery of this album is at work (its lease runs for two minutes).
    await site.engine.context.db
      .insertInto("telegram_albums")
      .values({ album_key: `${chat.id}:42`, post_id: null, busy_until: now + 120, created_at: now })
      .execute();
    const update = messageUpdate({
      media_group_id: "42",
      photo: [{ file_id: "large", width: 900, height: 600 }],
    });
    expectError(await deliver(update, secret), 409, "CONFLICT");
    expect(await posts()).toEqual([]);
    // Telegram delivers it again after the lease ran out: published, not a duplicate.
    site.clock.advance(121);
    const again = await deliver(update, secret);
    expect(again.body.status).toBe("published");
    expect(await posts()).toHaveLength(1);
  });

  it("failures answer 200, reply in the chat and publish nothing; unsupported kinds are answered", async () => {
    const secret = await connect();
    await bind(secret);
    const sentBefore = api.sent().length;
    // An image type the site does not take: the upload path refuses it.
    api.addFile("gif", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0]), "documents/a.gif");
    const gif = await deliver(
      messageUpdate({ document: { file_id: "gif", file_name: "a.gif", mime_type: "image/gif" } }),
      secret,
    );
    expect(gif.status).toBe(200);
    expect(gif.body).toMatchObject({
      ok: true,
      status: "failed",
      reason: expect.stringContaining("image/gif"),
    });
    expect(api.sent().at(-1)?.text).toContain("not published");
    // The Bot API cannot give the file.
    const missing = await deliver(
      messageUpdate({ document: { file_id: "unknown", file_name: "x.pdf" } }),
      secret,
    );
    expect(missing.body.status).toBe("failed");
    // A redelivery of a failed update is not tried again.
    expect(
      (await deliver(messageUpdate({ document: { file_id: "unknown" } }, missing.body.updateId), secret)).body
        .status,
    ).toBe("duplicate");
    // webhooks guide: "Message with audio" — not a kind that is published.
    const audio = await deliver(
      messageUpdate({
        audio: {
          file_id: "AwADBAADbXXXXXXXXXXXGBdhD2l6_XX",
          duration: 243,
          mime_type: "audio/mpeg",
          file_size: 3897500,
          title: "Test music file",
        },
      }),
      secret,
    );
    expect(audio.body.status).toBe("replied");
    expect(api.sent().length).toBe(sentBefore + 3);
    expect(await posts()).toEqual([]);
    expect(await site.storedKeys()).toEqual([]);
    // sendMessage failing changes nothing about the answer.
    api.failMethod("sendMessage", { status: 403, description: "Forbidden: bot was blocked by the user" });
    expect(
      (await deliver(messageUpdate({ document: { file_id: "gif", mime_type: "image/gif" } }), secret)).status,
    ).toBe(200);
  });
});
