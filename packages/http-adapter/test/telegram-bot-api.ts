import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the Telegram Bot API (the real one is not reachable from the tests): a
 * node:http server on 127.0.0.1 speaking the documented subset the bot uses — `getMe`,
 * `setWebhook`, `deleteWebhook`, `getFile`, `sendMessage` (POST `/bot<token>/<method>` with a
 * JSON body, answered `{ ok: true, result }` or `{ ok: false, error_code, description }` with the
 * same HTTP status) and file downloads (GET `/file/bot<token>/<file_path>`). Shapes follow
 * https://core.telegram.org/bots/api (Making requests, getFile, File, Message, User).
 */
export interface BotApiStandIn {
  /** The base URL to give as `apiBaseUrl`. */
  url: string;
  /** The token it accepts; any other answers 401 Unauthorized, as Telegram does. */
  token: string;
  /** Every call received, in order: method and JSON parameters. */
  calls: { method: string; params: Record<string, unknown> }[];
  /** The messages sent with sendMessage. */
  sent(): { chat_id: unknown; text: string }[];
  /** Serves a file: getFile gives its path, the download its bytes. */
  addFile(fileId: string, bytes: Uint8Array, filePath?: string): void;
  /** Makes a method fail with this status and description until cleared (null). */
  failMethod(method: string, failure: { status: number; description: string } | null): void;
  close(): Promise<void>;
}

/** The stand-in's behaviour as a Fetch handler, without a server (see {@link interceptBotApi}). */
export interface BotApiBehaviour extends Omit<BotApiStandIn, "url" | "close"> {
  fetch(request: Request): Promise<Response>;
}

export function botApiBehaviour(token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"): BotApiBehaviour {
  const calls: BotApiStandIn["calls"] = [];
  const files = new Map<string, { path: string; bytes: Uint8Array }>();
  const failures = new Map<string, { status: number; description: string }>();
  let nextMessageId = 1;
  const answer = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  return {
    token,
    calls,
    sent: () =>
      calls
        .filter((c) => c.method === "sendMessage")
        .map((c) => ({ chat_id: c.params.chat_id, text: String(c.params.text) })),
    addFile: (fileId, bytes, filePath = `documents/file_${files.size}.bin`) => {
      files.set(fileId, { path: filePath, bytes });
    },
    failMethod: (method, failure) => {
      if (failure) failures.set(method, failure);
      else failures.delete(method);
    },
    fetch: async (request) => {
      const url = new URL(request.url);
      const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (request.method === "GET" && fileMatch) {
        const file = [...files.values()].find((f) => f.path === decodeURIComponent(fileMatch[2] as string));
        if (fileMatch[1] !== token || !file)
          return answer(404, { ok: false, error_code: 404, description: "Not Found" });
        return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
          status: 200,
          headers: {
            "content-type": "application/octet-stream",
            "content-length": String(file.bytes.length),
          },
        });
      }
      const methodMatch = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      if (!methodMatch) return answer(404, { ok: false, error_code: 404, description: "Not Found" });
      if (methodMatch[1] !== token)
        return answer(401, { ok: false, error_code: 401, description: "Unauthorized" });
      const method = methodMatch[2] as string;
      const params = parseJson(await request.text());
      calls.push({ method, params });
      const failure = failures.get(method);
      if (failure) {
        return answer(failure.status, {
          ok: false,
          error_code: failure.status,
          description: failure.description,
        });
      }
      switch (method) {
        case "getMe":
          return answer(200, {
            ok: true,
            result: {
              id: 123456789,
              is_bot: true,
              first_name: "Quire Test",
              username: "quire_test_bot",
              can_join_groups: true,
            },
          });
        case "setWebhook":
          if (typeof params.url !== "string" || !params.url.startsWith("https://")) {
            return answer(400, {
              ok: false,
              error_code: 400,
              description: "Bad Request: bad webhook: An HTTPS URL must be provided for webhook",
            });
          }
          return answer(200, { ok: true, result: true, description: "Webhook was set" });
        case "deleteWebhook":
          return answer(200, { ok: true, result: true, description: "Webhook was deleted" });
        case "getFile": {
          const file = files.get(String(params.file_id));
          if (!file)
            return answer(400, { ok: false, error_code: 400, description: "Bad Request: invalid file_id" });
          return answer(200, {
            ok: true,
            result: {
              file_id: params.file_id,
              file_unique_id: `u${params.file_id}`,
              file_size: file.bytes.length,
              file_path: file.path,
            },
          });
        }
        case "sendMessage":
          return answer(200, {
            ok: true,
            result: {
              message_id: nextMessageId++,
              date: 1_700_000_000,
              chat: { id: params.chat_id, type: "private" },
              text: params.text,
            },
          });
        default:
          return answer(404, { ok: false, error_code: 404, description: "Not Found: method not found" });
      }
    },
  };
}

/** The stand-in on a loopback port. */
export async function startBotApiStandIn(token?: string): Promise<BotApiStandIn> {
  const behaviour = botApiBehaviour(token);
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const answer = await behaviour.fetch(
      new Request(`http://127.0.0.1${request.url ?? "/"}`, {
        method: request.method ?? "GET",
        ...(request.method === "GET" || request.method === "HEAD"
          ? {}
          : { body: new Uint8Array(body) as Uint8Array<ArrayBuffer> }),
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const { fetch: _fetch, ...rest } = behaviour;
  return {
    ...rest,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Routes the process's `fetch` calls to `https://api.telegram.org` to the stand-in (no network),
 * for a scenario that must name the real base URL (the worked examples of docs/api.md). Returns
 * the function that restores `fetch`.
 */
export function interceptBotApi(behaviour: BotApiBehaviour): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.url.startsWith("https://api.telegram.org/")) return behaviour.fetch(request);
    return original(input, init);
  }) as typeof fetch;
  return () => {
    globalThis.fetch = original;
  };
}

function parseJson(text: string): Record<string, unknown> {
  if (text === "") return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
