import type { Engine, ErrorCode } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createHandler, type FetchHandler, type HandlerOptions, statusOf } from "../src/index.js";

/** A test site: an engine on a fresh database and its Fetch handler with a local dev token. */
export interface TestSite {
  engine: Engine;
  handler: FetchHandler;
  clock: Awaited<ReturnType<typeof createTestEngine>>["clock"];
  /** Sends a request as the owner (dev token) unless `headers.authorization` says otherwise. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  cleanup(): Promise<void>;
}

/** A response with its parsed JSON body. */
export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
}

/** Builds a {@link TestSite}; `options` go to the handler, `engineConfig` to the engine. */
export async function createTestSite(
  options: HandlerOptions & { engineConfig?: Parameters<typeof createTestEngine>[0] } = {},
): Promise<TestSite> {
  const { engineConfig, ...handlerOptions } = options;
  const { engine, clock, cleanup } = await createTestEngine(engineConfig);
  const handler = createHandler(engine, {
    devApiToken: "dev-token",
    clientAddress: () => "127.0.0.1",
    ...handlerOptions,
  });
  return {
    engine,
    handler,
    clock,
    cleanup,
    call: async (method, path, body, headers = {}) => {
      const init: RequestInit = {
        method,
        headers: { authorization: "Bearer dev-token", ...headers },
      };
      if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
      const response = await handler(new Request(`http://localhost${path}`, init));
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === "" ? null : JSON.parse(text),
      };
    },
  };
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
