import type { Engine, ErrorCode } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { expect, onTestFinished } from "vitest";
import { createHandler, type FetchHandler, type HandlerOptions, statusOf } from "../src/index.js";

/** A test site: an engine on a fresh database and its Fetch handler with a local dev token. */
export interface TestSite {
  engine: Engine;
  handler: FetchHandler;
  clock: Awaited<ReturnType<typeof createTestEngine>>["clock"];
  /**
   * Sends a request with a JSON body (a string is sent as it is) as the owner (dev token) unless
   * `headers.authorization` says otherwise; an error answer must have the spec's shape.
   */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** Like {@link TestSite.call}, with raw bytes (or a stream) for a body. */
  send(
    method: string,
    path: string,
    body?: BodyInit | Uint8Array | null,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
  /** Closes the site before the test ends; closing again does nothing. */
  cleanup(): Promise<void>;
}

/** A response with its parsed JSON body. */
export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
}

/**
 * Builds a {@link TestSite} for the current test (call it in a test or in `beforeEach`): it is
 * closed when the test finishes. `options` go to the handler, `engineConfig` to the engine.
 */
export async function createTestSite(
  options: HandlerOptions & { engineConfig?: Parameters<typeof createTestEngine>[0] } = {},
): Promise<TestSite> {
  const { engineConfig, ...handlerOptions } = options;
  const { engine, clock, cleanup } = await createTestEngine(engineConfig);
  const close = once(cleanup);
  onTestFinished(close);
  const handler = createHandler(engine, {
    devApiToken: "dev-token",
    clientAddress: () => "127.0.0.1",
    ...handlerOptions,
  });
  const send: TestSite["send"] = async (method, path, body, headers = {}) => {
    const init: RequestInit & { duplex?: "half" } = {
      method,
      headers: { authorization: "Bearer dev-token", ...headers },
    };
    if (body !== undefined && body !== null) {
      init.body = body as BodyInit;
      if (body instanceof ReadableStream) init.duplex = "half";
    }
    const response = await handler(new Request(`http://localhost${path}`, init));
    const text = await response.text();
    const parsed = text === "" ? null : JSON.parse(text);
    assertErrorShape(response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    engine,
    handler,
    clock,
    cleanup: close,
    send,
    call: (method, path, body, headers) =>
      send(
        method,
        path,
        body === undefined || typeof body === "string" ? body : JSON.stringify(body),
        headers,
      ),
  };
}

/** `close` run at most once, however often it is called. */
export function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= close();
    return closing;
  };
}

/** Asserts an error answer: this status, and exactly the spec's `{ error, code, details? }` with this code. */
export function expectError(response: TestResponse, status: number, code: ErrorCode, label?: string): void {
  expect(response.status, label).toBe(status);
  expect(isErrorBody(response.body, code), label ?? JSON.stringify(response.body)).toBe(true);
}

/**
 * Every error answer of the API, whatever the test asserts beyond its status: exactly
 * `{ error, code, details? }`, with a code whose status is the one sent. @see spec § Errors
 */
export function assertErrorShape(status: number, body: unknown): void {
  if (status < 400) return;
  const code = (body as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !isErrorBody(body, code) || statusOf[code as ErrorCode] !== status) {
    throw new Error(`HTTP ${status} answered outside the spec's error shape: ${JSON.stringify(body)}`);
  }
}

/** Asserts nothing about wording: an error body has exactly the spec's keys. */
export function isErrorBody(body: unknown, code: string): boolean {
  if (typeof body !== "object" || body === null) return false;
  const keys = Object.keys(body).sort();
  const record = body as Record<string, unknown>;
  return (
    record.code === code &&
    typeof record.error === "string" &&
    (keys.join(",") === "code,error" || keys.join(",") === "code,details,error")
  );
}

/**
 * A request body that sends `first`, then fails as a socket's body does when its client goes away
 * (or the server cuts a silent one): for the routes' answer to a body that stops before its end.
 */
export function stoppingBody(first: Uint8Array | string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(typeof first === "string" ? new TextEncoder().encode(first) : first);
    },
    pull(controller) {
      controller.error(new Error("aborted"));
    },
  });
}
