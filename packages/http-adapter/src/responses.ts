import { EngineError, type ErrorCode, toErrorBody } from "@quire/core";
import { ContentCodingRefused } from "./request-body.js";
import { statusOf } from "./status.js";

/** A JSON response. */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set("content-type", "application/json; charset=utf-8");
  return response;
}

/**
 * The spec's error shape with the status its code maps to. A refused content coding also names the
 * one the server reads (RFC 7694 § 3).
 */
export function errorResponse(err: unknown): Response {
  const body = toErrorBody(err);
  const headers = err instanceof ContentCodingRefused ? { "accept-encoding": "identity" } : undefined;
  return json(body, statusOf[body.code], headers);
}

/** An error response for a condition the adapter itself detects. */
export function errorOf(code: ErrorCode, message: string): Response {
  return errorResponse(new EngineError(code, message));
}
