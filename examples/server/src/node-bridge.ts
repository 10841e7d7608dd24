import { IncomingMessage, type ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";
import { EngineError, toErrorBody } from "@quire/core";

/** A Fetch-API request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options for {@link createNodeBridge}. */
export interface NodeBridgeOptions {
  /** Hears about a handler that threw (the client gets a 500 in the spec's error shape). */
  onError: (error: unknown) => void;
  /** True while the server shuts down: responses then close their connection. */
  closing?: () => boolean;
  /**
   * How long a request body may stop arriving before its connection is closed, in milliseconds
   * (`REQUEST_BODY_IDLE_SECONDS`); 0 or unset: never. Only the client's silence counts: time the
   * handler spends before or after reading, or while it is too busy to take more bytes, does not.
   */
  bodyIdleMs?: number;
}

/** A node:http request listener serving a Fetch handler, and the remote address of each request. */
export interface NodeBridge {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The socket address a bridged `Request` came from (for the handler's `clientAddress`). */
  remoteAddress: (request: Request) => string | undefined;
  /**
   * The body of a bridged `Request` straight from Node's request stream (for the handler's
   * `requestBody`): uploads then skip the Web-stream conversion. Stopping early leaves the stream
   * to the bridge, which drains it after the response as it does for an unread `request.body`.
   */
  rawBody: (request: Request) => AsyncIterable<Uint8Array> | undefined;
}

/**
 * Serves a Fetch handler on node:http through `@hono/node-server`, which streams request and
 * response bodies with backpressure. This adds what the handler needs from the socket: the
 * client's address, a spec-shaped 500 for a handler that throws, and `Connection: close` while
 * the server drains for shutdown.
 */
export function createNodeBridge(handler: FetchHandler, options: NodeBridgeOptions): NodeBridge {
  const { onError, closing = () => false, bodyIdleMs = 0 } = options;
  const addresses = new WeakMap<Request, string>();
  const incomings = new WeakMap<Request, Readable>();
  const listener = getRequestListener(
    async (request, env) => {
      const address = env.incoming.socket.remoteAddress;
      if (address) addresses.set(request, address);
      incomings.set(request, env.incoming);
      const watching =
        bodyIdleMs > 0 && env.incoming instanceof IncomingMessage
          ? watchBody(env.incoming, bodyIdleMs)
          : undefined;
      let response: Response;
      try {
        response = await handler(request);
      } finally {
        watching?.stopIfComplete();
      }
      if (closing()) response.headers.set("connection", "close");
      return response;
    },
    {
      // The bridge's own Request/Response classes in this process (it is the reference server's,
      // not an embedder's): a Response made from bytes is written in one call instead of being read
      // back out of a Web stream, 1.5–1.8× the cached public reads per second (docs/caching.md §
      // Where a hit's time goes). Fetch, streams and the MCP transport work unchanged with them.
      overrideGlobalObjects: true,
      errorHandler: (error) => {
        // The bridge could not make a Request of what the client sent (an invalid Host, a bad
        // request target): the client's fault, so a 400, and nothing worth a stack in the log.
        if (error instanceof RequestError) {
          return Response.json(
            toErrorBody(new EngineError("VALIDATION_ERROR", `Unreadable request: ${error.message}`)),
            { status: 400 },
          );
        }
        onError(error);
        return Response.json({ error: "Internal error", code: "INTERNAL_ERROR" }, { status: 500 });
      },
    },
  );
  return {
    listener: (req, res) => void listener(req, res),
    remoteAddress: (request) => addresses.get(request),
    rawBody(request) {
      const incoming = incomings.get(request);
      if (!incoming || request.method === "GET" || request.method === "HEAD") return undefined;
      return { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) };
    },
  };
}

/**
 * Closes the connection of a request whose body stops arriving for `idleMs`. Node's own limits do
 * not tell a stalled body from a slow one: `requestTimeout` cuts a request not wholly received in
 * time however steadily its bytes come (a 50 MiB upload part over a slow uplink), and a socket
 * timeout also fires while the handler works or holds the body back. So this looks at the socket's
 * byte count a few times per `idleMs` until the message is complete: no new byte while the body's
 * buffer has room (the handler is waiting for more) for `idleMs` is the client's silence. The
 * handler's read then fails, as when a client goes away.
 */
function watchBody(incoming: IncomingMessage, idleMs: number): { stopIfComplete(): void } | undefined {
  if (incoming.complete) return undefined;
  const socket = incoming.socket;
  let bytesRead = socket.bytesRead;
  let quietSince = Date.now();
  const timer = setInterval(
    () => {
      if (incoming.complete || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      const now = Date.now();
      const heldBack = incoming.readableLength >= incoming.readableHighWaterMark;
      if (socket.bytesRead !== bytesRead || heldBack) {
        bytesRead = socket.bytesRead;
        quietSince = now;
      } else if (now - quietSince >= idleMs) {
        clearInterval(timer);
        socket.destroy();
      }
    },
    Math.max(25, Math.floor(idleMs / 4)),
  );
  timer.unref();
  // No listener on the socket: a keep-alive connection serves many requests, and a listener per
  // request would pile up on it. The watch ends at the first look after the body is complete or the
  // socket is gone, or as soon as the handler is done with a body that is complete by then.
  return {
    stopIfComplete() {
      if (incoming.complete) clearInterval(timer);
    },
  };
}
