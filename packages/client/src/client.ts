import { type FormPart, isClientBytes, knownSize, multipartBody, PieceReader, requestBody } from "./bytes.js";
import { errorFromResponse, QuireError } from "./errors.js";
import type { ClientRoute } from "./route.js";
import { routeTable } from "./routes.js";
import type {
  CallOptions,
  ClientBytes,
  ClientGroups,
  ClientInput,
  ClientOutput,
  MediaDetailsInput,
  PagedOperationId,
  PageItem,
  RoutedOperationId,
} from "./types.js";

/** How to reach a Quire site. */
export interface ClientOptions {
  /**
   * The site's address, with its path prefix when it has one: `https://example.com` or
   * `https://example.com/blog` (a site with `SITE_PATH_PREFIX=/blog`). Paths are appended to it.
   */
  baseUrl: string | URL;
  /** An API token, sent as `Authorization: Bearer <token>` (the internal admin token for `tokens.*`). */
  token?: string;
  /** The fetch to use (default: the global one); e.g. a test's or one with retries. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request (a call's own headers win). */
  headers?: Record<string, string>;
}

/** What `media.upload` takes besides the file. */
export interface UploadOptions extends MediaDetailsInput, CallOptions {
  /** The file's name; defaults to a `File`'s name. Required for other sources. */
  filename?: string;
  /** The file's type; defaults to a Blob's type, else `application/octet-stream`. */
  contentType?: string;
  /** The file's size in bytes; known for a Blob or bytes, needed to send a stream through a session. */
  size?: number;
  /** Base64 SHA-256 of the file, checked by the server when the file goes through a session. */
  checksumSha256?: string;
  /** A video's poster frame (WebP). */
  poster?: ClientBytes;
  /** The poster's type; default `image/webp`. */
  posterContentType?: string;
  /**
   * `oneShot`: one `POST /api/upload` streaming a form. `session`: `POST /api/uploads/init`, the
   * file sent the way the server answers (relay, multipart relay in parts, or a presigned PUT
   * straight to storage), then `complete`. `auto` (default): one-shot when the size is unknown or
   * at most `oneShotMaxBytes`, else a session.
   */
  via?: "auto" | "oneShot" | "session";
  /** Largest file `auto` sends one-shot; default 8 MiB. */
  oneShotMaxBytes?: number;
}

type UploadFunction = (file: ClientBytes, options?: UploadOptions) => Promise<ClientOutput<"media.upload">>;

/** The typed client: `client.<group>.<name>(input)` per operation, iterators and upload helpers. */
export type QuireClient = Omit<ClientGroups, "media"> & {
  media: Omit<ClientGroups["media"], "upload"> & {
    /**
     * Uploads a file, one-shot or through an upload session, streaming it; resolves to the media
     * record. A failed session is aborted.
     */
    upload: UploadFunction;
  };
  /** Runs any operation by id. */
  call<Id extends RoutedOperationId>(
    id: Id,
    input?: ClientInput<Id>,
    options?: CallOptions,
  ): Promise<ClientOutput<Id>>;
  /** Walks a cursor list page by page, following `nextCursor` until it is null. */
  pages<Id extends PagedOperationId>(
    id: Id,
    input?: ClientInput<Id>,
    options?: CallOptions,
  ): AsyncGenerator<ClientOutput<Id>, void, undefined>;
  /** Walks a cursor list item by item. */
  items<Id extends PagedOperationId>(
    id: Id,
    input?: ClientInput<Id>,
    options?: CallOptions,
  ): AsyncGenerator<PageItem<Id>, void, undefined>;
};

const defaultOneShotMaxBytes = 8 * 1024 * 1024;

/**
 * A client for a Quire site's HTTP API. Every operation the route table serves is a function
 * (`client.posts.create({ format: "note", bodyMarkdown: "Hi" })`), every cursor list an iterator
 * (`for await (const thread of client.threads.iterate({ limit: 50 }))`). Errors throw
 * {@link QuireError} with the answer's status, code and details.
 */
export function createClient(options: ClientOptions): QuireClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const doFetch =
    options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));

  function headersFor(callOptions: CallOptions | undefined, extra: Record<string, string> = {}): Headers {
    const headers = new Headers(options.headers);
    if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    for (const [name, value] of Object.entries(callOptions?.headers ?? {})) headers.set(name, value);
    return headers;
  }

  /** An address the server handed out (a relay URL, already prefixed) or a route path, as a URL. */
  function siteUrl(pathOrUrl: string): URL {
    return /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) ? new URL(pathOrUrl) : new URL(pathOrUrl, base.origin);
  }

  async function send(url: URL, init: RequestInit & { streamed?: boolean }): Promise<Response> {
    const { streamed, ...rest } = init;
    // Node's fetch streams a ReadableStream body only in half-duplex mode.
    const request = streamed ? ({ ...rest, duplex: "half" } as RequestInit) : rest;
    const response = await doFetch(url, request);
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  /**
   * A JSON answer as its value; a download (`content-disposition: attachment`, e.g. an export) as
   * the engine's streamed file, its body the response's stream, unread; another document (a feed,
   * the sitemap) as the engine's raw answer, its body the text.
   */
  async function answerOf(response: Response): Promise<unknown> {
    if (response.status === 204) return undefined;
    const type = response.headers.get("content-type") ?? "";
    const disposition = response.headers.get("content-disposition") ?? "";
    if (/^attachment\b/i.test(disposition) && response.body) {
      const filename = /filename="([^"]*)"/i.exec(disposition)?.[1] ?? "";
      return { streamed: true, contentType: type, filename, body: response.body };
    }
    const text = await response.text();
    if (/^application\/json\b/i.test(type)) return text === "" ? undefined : JSON.parse(text);
    const lastModified = Date.parse(response.headers.get("last-modified") ?? "");
    return {
      raw: true,
      contentType: type,
      body: text,
      etag: response.headers.get("etag") ?? "",
      lastModified: Number.isNaN(lastModified) ? 0 : lastModified / 1000,
    };
  }

  async function call(id: string, input: unknown, callOptions?: CallOptions): Promise<unknown> {
    const values = (input ?? {}) as Record<string, unknown>;
    const route = routeFor(id, values);
    const { path, rest } = fillPath(route.path, values);
    const url = new URL(`${base.origin}${prefix}${path}`);
    const init: RequestInit & { streamed?: boolean } = { method: route.method, signal: callOptions?.signal };
    let contentType: string | undefined;
    let sentHeaders: Record<string, string> = {};
    switch (route.input) {
      case "none":
        break;
      case "query":
        appendQuery(url, rest);
        break;
      case "body":
      case "queryAndBody":
        // queryAndBody: the server reads the JSON body over the query, so everything goes in the body.
        init.body = JSON.stringify(rest);
        contentType = "application/json";
        break;
      case "stream": {
        const { body, contentType: type, contentLength: _length, ...query } = rest;
        appendQuery(url, query);
        const sent = requestBody((body ?? new Uint8Array(0)) as ClientBytes);
        init.body = sent.body;
        init.streamed = sent.streamed;
        contentType = typeof type === "string" ? type : "application/octet-stream";
        break;
      }
      case "raw": {
        // A webhook delivery relayed as received: its bytes and its headers (the signature covers the bytes).
        const { body, headers } = rest as { body?: unknown; headers?: Record<string, string> };
        const sent = requestBody((body ?? new Uint8Array(0)) as ClientBytes);
        init.body = sent.body;
        init.streamed = sent.streamed;
        // Hop-by-hop and framing headers are the new request's own.
        sentHeaders = Object.fromEntries(
          Object.entries(headers ?? {}).filter(
            ([name]) => !/^(host|content-length|connection|transfer-encoding|authorization)$/i.test(name),
          ),
        );
        contentType = sentHeaders["content-type"] ?? "application/json";
        break;
      }
      case "form": {
        const form = multipartBody(formParts(rest));
        init.body = form.body;
        init.streamed = form.streamed;
        contentType = form.contentType;
        break;
      }
    }
    init.headers = headersFor(callOptions, {
      ...sentHeaders,
      ...(contentType ? { "content-type": contentType } : {}),
    });
    return answerOf(await send(url, init));
  }

  async function* pages(id: string, input: unknown, callOptions?: CallOptions): AsyncGenerator<unknown> {
    const filters = { ...((input ?? {}) as Record<string, unknown>) };
    for (;;) {
      const page = (await call(id, filters, callOptions)) as { nextCursor?: unknown };
      yield page;
      if (typeof page?.nextCursor !== "string") return;
      filters.cursor = page.nextCursor;
    }
  }

  async function* items(id: string, input: unknown, callOptions?: CallOptions): AsyncGenerator<unknown> {
    for await (const page of pages(id, input, callOptions)) {
      const arrays = Object.entries(page as Record<string, unknown>).filter(
        ([key, value]) => key !== "nextCursor" && Array.isArray(value),
      );
      if (arrays.length !== 1) throw new TypeError(`${id} answered a page without one list of items`);
      yield* (arrays[0] as [string, unknown[]])[1];
    }
  }

  async function upload(file: ClientBytes, uploadOptions: UploadOptions = {}): Promise<unknown> {
    if (!isClientBytes(file)) throw new TypeError("media.upload takes a Blob, stream or bytes as the file");
    const {
      filename = typeof File !== "undefined" && file instanceof File ? file.name : undefined,
      contentType = (file instanceof Blob && file.type) || "application/octet-stream",
      size = knownSize(file),
      checksumSha256,
      poster,
      posterContentType = "image/webp",
      via = "auto",
      oneShotMaxBytes = defaultOneShotMaxBytes,
      signal,
      headers,
      ...details
    } = uploadOptions;
    if (filename === undefined) throw new TypeError("media.upload needs a filename for this file");
    const callOptions: CallOptions = { ...(signal ? { signal } : {}), ...(headers ? { headers } : {}) };
    const oneShot = via === "oneShot" || (via === "auto" && (size === undefined || size <= oneShotMaxBytes));
    if (oneShot) {
      return call(
        "media.upload",
        { ...details, file, filename, contentType, ...(poster ? { poster, posterContentType } : {}) },
        callOptions,
      );
    }
    if (size === undefined) throw new TypeError("An upload session needs the file's size (options.size)");
    const session = (await call(
      "uploads.init",
      { filename, contentType, size, ...(checksumSha256 ? { checksumSha256 } : {}) },
      callOptions,
    )) as ClientOutput<"uploads.init">;
    try {
      const parts = await sendFile(session, file, size, contentType, callOptions);
      if (poster) {
        await call(
          "uploads.putPoster",
          { id: session.id, body: poster, contentType: posterContentType },
          callOptions,
        );
      }
      return await call(
        "uploads.complete",
        { id: session.id, ...details, ...(parts ? { parts } : {}) },
        callOptions,
      );
    } catch (err) {
      await call("uploads.abort", { id: session.id }, { ...callOptions, signal: undefined }).catch(() => {});
      throw err;
    }
  }

  /** Sends the file the way the session's transport says; the parts of a multipart relay. */
  async function sendFile(
    session: ClientOutput<"uploads.init">,
    file: ClientBytes,
    size: number,
    contentType: string,
    callOptions: CallOptions,
  ): Promise<{ partNumber: number; etag: string }[] | undefined> {
    const { transport } = session;
    switch (transport.kind) {
      case "relay": {
        const url = siteUrl(
          transport.url ??
            `${prefix}${fillPath(routeTable["uploads.putBody"][0].path, { id: session.id }).path}`,
        );
        const sent = requestBody(file);
        await send(url, {
          method: transport.method,
          body: sent.body,
          streamed: sent.streamed,
          signal: callOptions.signal,
          headers: headersFor(callOptions, { "content-type": contentType }),
        });
        return undefined;
      }
      case "multipartRelay": {
        const path =
          transport.url ??
          `${prefix}${fillPath(routeTable["uploads.putPart"][0].path, { id: session.id }).path}`;
        const reader = new PieceReader(file);
        const parts: { partNumber: number; etag: string }[] = [];
        const count = Math.max(1, Math.ceil(size / transport.partSize));
        for (let partNumber = 1; partNumber <= count; partNumber++) {
          const url = siteUrl(path);
          url.searchParams.set("partNumber", String(partNumber));
          const sent = requestBody(
            reader.take(Math.min(transport.partSize, size - (partNumber - 1) * transport.partSize)),
          );
          const response = await send(url, {
            method: transport.method,
            body: sent.body,
            streamed: sent.streamed,
            signal: callOptions.signal,
            headers: headersFor(callOptions, { "content-type": "application/octet-stream" }),
          });
          parts.push((await response.json()) as { partNumber: number; etag: string });
        }
        return parts;
      }
      case "put": {
        // Straight to storage with the headers the server signed: none of the client's own.
        const sent = requestBody(file);
        await send(new URL(transport.url), {
          method: transport.method,
          body: sent.body,
          streamed: sent.streamed,
          signal: callOptions.signal,
          headers: transport.headers,
        });
        return undefined;
      }
    }
  }

  const groups: Record<string, Record<string, unknown>> = {};
  for (const [id, entries] of Object.entries(routeTable as Record<string, readonly ClientRoute[]>)) {
    const [group, name] = id.split(".") as [string, string];
    groups[group] ??= {};
    groups[group][name] = (input?: unknown, callOptions?: CallOptions) => call(id, input, callOptions);
    if (name.startsWith("list") && entries.some((entry) => entry.cursor)) {
      groups[group][`iterate${name.slice("list".length)}`] = (input?: unknown, callOptions?: CallOptions) =>
        items(id, input, callOptions);
    }
  }
  groups.media ??= {};
  groups.media.upload = upload;
  return {
    ...groups,
    call,
    pages,
    items,
  } as unknown as QuireClient;
}

/** The first route of an operation whose path parameters the input has all of (else its first route). */
function routeFor(id: string, input: Record<string, unknown>): ClientRoute {
  const routes = (routeTable as Record<string, readonly ClientRoute[]>)[id];
  if (!routes?.[0]) throw new TypeError(`Unknown operation ${id}`);
  const filled = (route: ClientRoute) =>
    [...route.path.matchAll(/:([A-Za-z]+)/g)].every(([, name]) => {
      const value = input[name as string];
      return typeof value === "string" || typeof value === "number";
    });
  // The most specific route first: `/feeds/:format` when a format is given, `/rss` otherwise.
  const candidates = [...routes].sort((a, b) => paramCount(b) - paramCount(a));
  return candidates.find(filled) ?? routes[0];
}

function paramCount(route: ClientRoute): number {
  return route.path.split(":").length - 1;
}

/** The path with `:name` parameters filled from the input, and the rest of the input. */
function fillPath(
  template: string,
  input: Record<string, unknown>,
): { path: string; rest: Record<string, unknown> } {
  const rest = { ...input };
  const path = template.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = rest[name];
    if (typeof value !== "string" && typeof value !== "number") {
      throw new TypeError(`${template} needs the input field ${name}`);
    }
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  return { path, rest };
}

/** Input values as query parameters: lists as repeated keys, numbers and booleans as text. */
function appendQuery(url: URL, values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      url.searchParams.append(name, typeof item === "object" ? JSON.stringify(item) : String(item));
    }
  }
}

/** A form route's input as form parts: byte fields as files (`x` with `xContentType`), the rest as text. */
function formParts(input: Record<string, unknown>): FormPart[] {
  const fields: FormPart[] = [];
  const files: FormPart[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null || name === "filename" || name.endsWith("ontentType")) continue;
    if (isClientBytes(value)) {
      const type = name === "file" ? input.contentType : input[`${name}ContentType`];
      files.push({
        name,
        filename: name === "file" && typeof input.filename === "string" ? input.filename : name,
        contentType: typeof type === "string" ? type : "application/octet-stream",
        body: value,
      });
    } else {
      fields.push({ name, value: typeof value === "object" ? JSON.stringify(value) : String(value) });
    }
  }
  // Text fields first: the server reads them before the file, so a bad one fails before the upload.
  return [...fields, ...files];
}

export { QuireError };
