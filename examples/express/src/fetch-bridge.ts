import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request as ExpressRequest, Response as ExpressResponse, NextFunction } from "express";

/** A Fetch handler, as `createHandler` and `createFileHandler` return. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Express middleware that hands the request to a Fetch handler and streams its Response back.
 *
 * Two Express habits would break it, and it guards against both:
 * - Mount paths: under `app.use("/api", …)` Express strips `/api` from `req.url`, but Quire
 *   routes on the full path, so the Request is built from `req.originalUrl`.
 * - Body parsers: `express.json()` (or any body-parser) placed before this middleware reads the
 *   body stream to the end, and Quire would get an empty body. Mount Quire before any parser, or
 *   give parsers to your own routes only; a body that was already read is refused loudly here.
 */
export function fetchMiddleware(handler: FetchHandler, addresses?: WeakMap<Request, string>) {
  return async (req: ExpressRequest, res: ExpressResponse, next: NextFunction): Promise<void> => {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    if (hasBody && (req.readableEnded || (req as { _body?: boolean })._body)) {
      next(new Error("A body parser read this request before Quire: mount Quire before express.json()"));
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const url = new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`);
    const request = new Request(url, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>) : undefined,
      // Required by Node's fetch for a streamed request body.
      duplex: "half",
    } as RequestInit);
    if (req.socket.remoteAddress) addresses?.set(request, req.socket.remoteAddress);

    const response = await handler(request);
    res.status(response.status);
    for (const [name, value] of response.headers) {
      if (name !== "set-cookie") res.setHeader(name, value);
    }
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res);
  };
}
