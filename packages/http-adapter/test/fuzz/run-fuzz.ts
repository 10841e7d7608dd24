import type { ErrorCode } from "@quire/core";
import fc from "fast-check";
import { statusOf } from "../../src/index.js";
import type { FuzzSite, Pools, Snapshot } from "./fuzz-site.js";
import { type FuzzRequest, fuzzRequests } from "./requests.js";

/** A broken promise of the API, with the request that showed it. */
export interface Problem {
  kind:
    | "5xx"
    | "error shape"
    | "status"
    | "changed store"
    | "round trip"
    | "leak in message"
    | "threw"
    | "no answer";
  detail: string;
  request: FuzzRequest;
  status?: number;
  body?: string;
}

/** What a run did. */
export interface FuzzReport {
  requests: number;
  /** Requests the Fetch API itself refuses to build (a header it cannot carry): not sent. */
  unsendable: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  /** Milliseconds spent answering, by operation. */
  msByOperation: Record<string, number>;
  serverErrors: number;
  /** The slowest answer: its request's label and milliseconds. */
  slowest: { label: string; ms: number };
  problems: Problem[];
  seconds: number;
}

/** Options of {@link runFuzz}. */
export interface FuzzOptions {
  requests: number;
  seed: number;
  /** Requests generated from one reading of the site's IDs and cursors. */
  batch?: number;
  /** Longest wait for one answer. */
  timeoutMs?: number;
  /** Stop after this many problems (the rest would likely repeat them). */
  maxProblems?: number;
  onBatch?: (report: FuzzReport) => void;
}

/**
 * Sends `requests` generated requests to the site one at a time and checks each answer: never a
 * 5xx; every error in the spec's `{ error, code, details? }` shape with the status of its code and
 * no stack or SQL in it; a route's success status; 404 NOT_FOUND for what no route takes; and an
 * unchanged store (every table, every stored file) after a rejected request or a read.
 */
export async function runFuzz(site: FuzzSite, options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const batch = options.batch ?? 25;
  const report: FuzzReport = {
    requests: 0,
    unsendable: 0,
    byStatus: {},
    byOperation: {},
    msByOperation: {},
    serverErrors: 0,
    slowest: { label: "", ms: 0 },
    problems: [],
    seconds: 0,
  };
  const cursors: string[] = [];
  // Built once; the pools it draws from are refilled from the site before each batch.
  const pools: Pools = {
    postIds: [],
    slugs: [],
    mediaIds: [],
    uploads: [],
    tokenIds: [],
    apiTokens: [],
    cursors: [],
    etags: [],
  };
  const requests = fuzzRequests(pools);
  for (let round = 0; report.requests < options.requests; round++) {
    await site.replenish();
    Object.assign(pools, await site.pools([...cursors]));
    const count = Math.min(batch, options.requests - report.requests);
    const planned = fc.sample(requests, { numRuns: count, seed: options.seed + round });
    let before = await site.snapshot();
    for (const request of planned) {
      report.requests++;
      const sent = performance.now();
      const outcome = await send(site, request, options.timeoutMs ?? 20_000);
      if (outcome === "unsendable") {
        report.unsendable++;
        continue;
      }
      const operation = request.route?.operation ?? (request.unrouted ? "no route" : request.label);
      report.byOperation[operation] = (report.byOperation[operation] ?? 0) + 1;
      const ms = performance.now() - sent;
      report.msByOperation[operation] = (report.msByOperation[operation] ?? 0) + ms;
      if (ms > report.slowest.ms)
        report.slowest = { label: `${request.label}: ${request.method} ${request.url.slice(0, 120)}`, ms };
      const problems = checkAnswer(request, outcome);
      if ("status" in outcome) {
        report.byStatus[String(outcome.status)] = (report.byStatus[String(outcome.status)] ?? 0) + 1;
        if (outcome.status >= 500) report.serverErrors++;
        learnCursors(outcome.json, cursors);
      }
      const after = await site.snapshot();
      if (mustNotChange(request, outcome)) {
        const changes = changesBetween(before, after, allowedChanges(request, before));
        if (changes.length > 0)
          problems.push({ kind: "changed store", detail: changes.slice(0, 6).join("\n"), request });
      }
      before = after;
      report.problems.push(...problems);
      if ("threw" in outcome && outcome.threw === "timeout") break;
      if (report.problems.length >= (options.maxProblems ?? 50)) break;
    }
    report.seconds = (performance.now() - started) / 1000;
    options.onBatch?.(report);
    if (report.problems.length >= (options.maxProblems ?? 50)) break;
    if (report.problems.some((problem) => problem.kind === "no answer")) break;
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

type Outcome =
  | { status: number; text: string; json: unknown; contentType: string | null }
  | { threw: string };

async function send(
  site: FuzzSite,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<Outcome | "unsendable"> {
  let built: Request;
  try {
    const init: RequestInit & { duplex?: "half" } = { method: request.method, headers: request.headers };
    if (request.body && !request.rawBody) {
      init.body = request.body as BodyInit;
      init.duplex = "half";
    }
    built = new Request(`http://localhost${request.url}`, init);
  } catch {
    return "unsendable";
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const answer = await Promise.race([
      site.handle(built, request.rawBody ? request.body : undefined).then(async (response) => ({
        response,
        text: await response.text(),
      })),
      timeout,
    ]);
    if (answer === "timeout") return { threw: "timeout" };
    let json: unknown;
    try {
      json = answer.text === "" ? null : JSON.parse(answer.text);
    } catch {
      json = undefined;
    }
    return {
      status: answer.response.status,
      text: answer.text,
      json,
      contentType: answer.response.headers.get("content-type"),
    };
  } catch (err) {
    return { threw: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Text in an error message that only a bug would put there. */
const leaks = [
  /\n\s+at /,
  /SQLITE_/,
  /syntax error/i,
  /relation "/,
  /node_modules/,
  /\/tmp\//,
  /constraint failed/i,
];

function checkAnswer(request: FuzzRequest, outcome: Outcome): Problem[] {
  if ("threw" in outcome) {
    return [{ kind: outcome.threw === "timeout" ? "no answer" : "threw", detail: outcome.threw, request }];
  }
  const problem = (kind: Problem["kind"], detail: string): Problem[] => [
    { kind, detail, request, status: outcome.status, body: outcome.text.slice(0, 500) },
  ];
  if (outcome.status >= 500) return problem("5xx", `answered ${outcome.status}`);
  const isFile = request.label === "file handler";
  if (isFile) return [];
  // A HEAD answer has the GET answer's status and headers and no content to check.
  if (request.method === "HEAD" && outcome.text !== "")
    return problem("status", "HEAD answered with content");
  if (outcome.status >= 400 && request.method === "HEAD") {
    if (!outcome.contentType?.startsWith("application/json"))
      return problem("error shape", `content-type ${outcome.contentType}`);
  } else if (outcome.status >= 400) {
    const shape = errorShapeProblem(outcome.status, outcome.json);
    if (shape) return problem("error shape", shape);
    if (!outcome.contentType?.startsWith("application/json"))
      return problem("error shape", `content-type ${outcome.contentType}`);
    const message = (outcome.json as { error: string }).error;
    if (leaks.some((pattern) => pattern.test(message))) return problem("leak in message", message);
  }
  // An unknown path is 404; a method the path does not have is 405 (docs/errors.md).
  if (request.unrouted && request.method !== "OPTIONS" && outcome.status !== 404 && outcome.status !== 405) {
    return problem(
      "status",
      `no route takes ${request.method} ${request.url}, yet it answered ${outcome.status}`,
    );
  }
  if (request.route && outcome.status < 400 && outcome.status !== (request.route.status ?? 200)) {
    return problem(
      "status",
      `success answered ${outcome.status}, the route's is ${request.route.status ?? 200}`,
    );
  }
  const changed = roundTripProblem(request, outcome.json);
  if (changed) return problem("round trip", changed);
  return [];
}

/** Text fields a post keeps exactly as sent (no trimming, no rewriting). */
const keptText = ["title", "summary", "sourceName", "quoteText", "bodyMarkdown"];

/**
 * A post written with text it answers differently: what the database kept is not what was sent
 * (the same request must keep the same text on every database). Null when it matches.
 */
function roundTripProblem(request: FuzzRequest, answer: unknown): string | null {
  const operation = request.route?.operation;
  if ((operation !== "posts.create" && operation !== "posts.update") || !request.body) return null;
  let sent: unknown;
  try {
    sent = JSON.parse(new TextDecoder().decode(request.body));
  } catch {
    return null;
  }
  if (!isRecord(sent) || !isRecord(answer)) return null;
  const kept = answer;
  for (const field of keptText) {
    if (typeof sent[field] === "string" && field in kept && kept[field] !== sent[field]) {
      return `${field} sent as ${JSON.stringify(sent[field]).slice(0, 80)}, kept as ${JSON.stringify(kept[field]).slice(0, 80)}`;
    }
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why an error answer is not `{ error, code, details? }` with its code's status, or null. */
export function errorShapeProblem(status: number, body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "not a JSON object";
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record).sort().join(",");
  if (keys !== "code,error" && keys !== "code,details,error") return `keys ${keys}`;
  if (typeof record.error !== "string" || typeof record.code !== "string") return "error or code not text";
  const expected = statusOf[record.code as ErrorCode];
  if (expected !== status) return `code ${record.code} answered with ${status}`;
  if ("details" in record) {
    const details = record.details as Record<string, unknown> | null;
    if (typeof details !== "object" || details === null) return "details not an object";
    if (record.code === "VALIDATION_ERROR" && ("formErrors" in details || "fieldErrors" in details)) {
      if (!Array.isArray(details.formErrors)) return "details.formErrors not an array";
      if (
        typeof details.fieldErrors !== "object" ||
        details.fieldErrors === null ||
        Array.isArray(details.fieldErrors)
      )
        return "details.fieldErrors not an object";
    }
  }
  return null;
}

/** A rejected request changes nothing; nor does a read that succeeded. */
function mustNotChange(request: FuzzRequest, outcome: Outcome): boolean {
  if ("threw" in outcome) return true;
  if (outcome.status >= 400) return true;
  return ["GET", "HEAD", "OPTIONS"].includes(request.method);
}

/**
 * What a rejected request may still change, as the spec and docs/media.md allow: a write to an
 * open upload session that is refused after its bytes were read discards what the session had
 * stored (and refreshes its lifetime), and a `complete` that fails its file checks ends the session
 * `aborted` with its bytes deleted. Nothing else, and nothing of another session.
 */
function allowedChanges(request: FuzzRequest, before: Snapshot) {
  const operation = request.route?.operation;
  const writes = ["uploads.putBody", "uploads.putPart", "uploads.putPoster", "uploads.complete"];
  if (!operation || !writes.includes(operation)) return { rows: () => false, files: () => false };
  const id = decodeSafe(request.url.split("?")[0]?.split("/")[3] ?? "");
  const row = before.rows.upload_sessions
    ?.map((text) => JSON.parse(text) as Record<string, unknown>)
    .find((session) => session.id === id);
  if (!row) return { rows: () => false, files: () => false };
  const marks = [row.media_id, row.multipart_upload_id].filter(
    (mark): mark is string => typeof mark === "string",
  );
  return {
    rows: (table: string, text: string) =>
      (table === "upload_sessions" && text.includes(`"id":"${id}"`)) ||
      (table === "upload_parts" && text.includes(`"session_id":"${id}"`)),
    files: (entry: string) => marks.some((mark) => entry.includes(mark)) || entry.startsWith(".tmp/"),
  };
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Rows and files that differ, leaving out what a request may change. */
export function changesBetween(
  before: Snapshot,
  after: Snapshot,
  allowed: { rows: (table: string, text: string) => boolean; files: (entry: string) => boolean },
): string[] {
  const changes: string[] = [];
  for (const table of Object.keys(before.rows)) {
    const was = new Set((before.rows[table] ?? []).filter((text) => !allowed.rows(table, text)));
    const now = new Set((after.rows[table] ?? []).filter((text) => !allowed.rows(table, text)));
    for (const text of was) if (!now.has(text)) changes.push(`${table} lost ${text.slice(0, 300)}`);
    for (const text of now) if (!was.has(text)) changes.push(`${table} gained ${text.slice(0, 300)}`);
  }
  const was = new Set(before.files.filter((entry) => !allowed.files(entry)));
  const now = new Set(after.files.filter((entry) => !allowed.files(entry)));
  for (const entry of was) if (!now.has(entry)) changes.push(`store lost ${entry}`);
  for (const entry of now) if (!was.has(entry)) changes.push(`store gained ${entry}`);
  return changes;
}

/** Cursors the answers give out, so later requests send real ones (and damaged copies). */
function learnCursors(json: unknown, cursors: string[]): void {
  if (typeof json !== "object" || json === null) return;
  const record = json as Record<string, unknown>;
  const found: unknown[] = [record.nextCursor];
  if (Array.isArray(record.threads)) {
    for (const thread of record.threads)
      found.push((thread as { fold?: { gap?: { cursor?: unknown } } }).fold?.gap?.cursor);
  }
  for (const cursor of found) {
    if (typeof cursor === "string" && !cursors.includes(cursor)) {
      cursors.push(cursor);
      if (cursors.length > 40) cursors.shift();
    }
  }
}
