import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

/** A Fetch-API request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options for {@link createNodeBridge}. */
export interface NodeBridgeOptions {
  /** Hears about a handler that threw (the client gets a 500 in the spec's error shape) and broken responses. */
  onError: (error: unknown) => void;
  /** True while the server shuts down: responses then close their connection. */
  closing?: () => boolean;
}

/** A node:http request listener serving a Fetch handler, and the remote address of each request. */
export interface NodeBridge {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The socket address a bridged `Request` came from (for the handler's `clientAddress`). */
  remoteAddress: (request: Request) => string | undefined;
}

/**
 * Bridges node:http to a Fetch handler. Request bodies stream through (with backpressure, never
 * buffered whole) and so do response bodies. A body the handler leaves unread is drained and
 * discarded once the response is sent, so the connection stays usable.
 */
export function createNodeBridge(handler: FetchHandler, options: NodeBridgeOptions): NodeBridge {
  const { onError, closing = () => false } = options;
  const addresses = new WeakMap<Request, string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let request: Request;
    try {
      request = toRequest(req, res);
    } catch {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("Bad Request");
      return;
    }
    if (req.socket.remoteAddress) addresses.set(request, req.socket.remoteAddress);
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      onError(error);
      response = Response.json({ error: "Internal server error", code: "INTERNAL_ERROR" }, { status: 500 });
    }
    await writeResponse(req, res, response, closing());
  }

  return {
    listener: (req, res) => {
      handle(req, res).catch((error: unknown) => {
        if (!isClientGone(error)) onError(error);
        res.destroy();
      });
    },
    remoteAddress: (request) => addresses.get(request),
  };
}

function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  // Origin-form targets are appended (not resolved), so a target such as "//x" stays a path.
  const target = req.url ?? "/";
  const url = /^https?:\/\//i.test(target)
    ? new URL(target)
    : new URL(`http://${req.headers.host ?? "localhost"}${target}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!name.startsWith(":")) headers.append(name, req.rawHeaders[i + 1] as string);
  }
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal: controller.signal };
  if (hasBody) {
    init.body = bodyStream(req, res);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/** The request body as a byte stream that pauses the socket while the reader is behind. */
function bodyStream(req: IncomingMessage, res: ServerResponse): ReadableStream<Uint8Array> {
  let discarding = false;
  const discard = () => {
    discarding = true;
    req.resume();
  };
  res.once("finish", () => {
    if (!req.complete) discard();
  });
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let done = false;
        const finish = (error?: unknown) => {
          if (done || discarding) return;
          done = true;
          if (error) controller.error(error);
          else controller.close();
        };
        req.on("data", (chunk: Buffer) => {
          if (discarding || done) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => finish());
        req.once("error", (error) => finish(error));
        req.once("close", () => {
          if (!req.complete) finish(new Error("the client closed the connection before the body ended"));
        });
      },
      pull: () => {
        if (!discarding) req.resume();
      },
      cancel: discard,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
}

async function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  closeConnection: boolean,
): Promise<void> {
  const headers: Record<string, string | string[]> = closeConnection ? { connection: "close" } : {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const bodyless = !response.body || req.method === "HEAD";
  if (
    !response.body &&
    response.status !== 204 &&
    response.status !== 304 &&
    !response.headers.has("content-length")
  ) {
    headers["content-length"] = "0";
  }
  res.writeHead(response.status, headers);
  if (bodyless) {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>), res);
  } catch (error) {
    if (!isClientGone(error)) throw error;
  }
}

/** Errors that only mean the client went away mid-response. */
function isClientGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ECONNRESET" || code === "EPIPE";
}
