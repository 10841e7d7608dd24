import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";

/** A Fetch-API request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** Options for {@link createNodeBridge}. */
export interface NodeBridgeOptions {
  /** Hears about a handler that threw (the client gets a 500 in the spec's error shape). */
  onError: (error: unknown) => void;
  /** True while the server shuts down: responses then close their connection. */
  closing?: () => boolean;
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
  const { onError, closing = () => false } = options;
  const addresses = new WeakMap<Request, string>();
  const incomings = new WeakMap<Request, Readable>();
  const listener = getRequestListener(
    async (request, env) => {
      const address = env.incoming.socket.remoteAddress;
      if (address) addresses.set(request, address);
      incomings.set(request, env.incoming);
      const response = await handler(request);
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
            { error: `Unreadable request: ${error.message}`, code: "VALIDATION_ERROR" },
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
