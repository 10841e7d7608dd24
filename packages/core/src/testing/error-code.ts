import { isEngineError } from "../errors.js";

/** The error code a call fails with, or "OK" when it succeeds; anything but an EngineError is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    throw err;
  }
  return "OK";
}
