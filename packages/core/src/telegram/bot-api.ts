import type { ByteSource } from "../storage.js";

/**
 * The few Bot API methods the bot calls (https://core.telegram.org/bots/api#making-requests):
 * `POST <base>/bot<token>/<method>` with a JSON body, answered `{ ok, result }` or
 * `{ ok: false, error_code, description }`; files are read from `<base>/file/bot<token>/<path>`.
 */
export interface BotApi {
  getMe(): Promise<{ id: number; username?: string }>;
  setWebhook(params: Record<string, unknown>): Promise<true>;
  deleteWebhook(): Promise<true>;
  getFile(fileId: string): Promise<{ file_id: string; file_path?: string; file_size?: number }>;
  /** The file's bytes as a stream, with its length when the server says it. */
  download(filePath: string): Promise<{ body: ByteSource; size: number | null }>;
  sendMessage(params: Record<string, unknown>): Promise<unknown>;
}

/** A failed Bot API call: the API's own refusal (`errorCode` from its answer) or no answer at all. */
export class BotApiError extends Error {
  constructor(
    readonly method: string,
    readonly errorCode: number | null,
    message: string,
  ) {
    super(message);
    this.name = "BotApiError";
  }
}

/** How long one Bot API call may take. */
const callTimeoutMs = 30_000;
/** How long a file download may take (the Bot API serves files of up to 20 MB). */
const downloadTimeoutMs = 120_000;

/** A Bot API client for one bot. */
export function botApi(baseUrl: string, token: string): BotApi {
  const base = baseUrl.replace(/\/+$/, "");
  async function call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}/bot${token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(callTimeoutMs),
      });
    } catch (err) {
      throw new BotApiError(method, null, `The Bot API did not answer: ${describe(err)}`);
    }
    let answer: { ok?: boolean; result?: unknown; error_code?: number; description?: string };
    try {
      answer = (await response.json()) as typeof answer;
    } catch {
      throw new BotApiError(method, response.status, `The Bot API answered ${response.status} without JSON`);
    }
    if (answer?.ok !== true) {
      throw new BotApiError(
        method,
        answer?.error_code ?? response.status,
        `${method}: ${answer?.description ?? `HTTP ${response.status}`}`,
      );
    }
    return answer.result as T;
  }
  return {
    getMe: () => call("getMe"),
    setWebhook: (params) => call("setWebhook", params),
    deleteWebhook: () => call("deleteWebhook"),
    getFile: (fileId) => call("getFile", { file_id: fileId }),
    sendMessage: (params) => call("sendMessage", params),
    download: async (filePath) => {
      let response: Response;
      try {
        response = await fetch(
          `${base}/file/bot${token}/${filePath.split("/").map(encodeURIComponent).join("/")}`,
          {
            signal: AbortSignal.timeout(downloadTimeoutMs),
          },
        );
      } catch (err) {
        throw new BotApiError("download", null, `The file could not be downloaded: ${describe(err)}`);
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new BotApiError("download", response.status, `The file download answered ${response.status}`);
      }
      const length = response.headers.get("content-length");
      return { body: response.body, size: length && /^\d+$/.test(length) ? Number(length) : null };
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
