import { EngineError, invalidField } from "../errors.js";

/**
 * The subset of GitHub's REST API the sync uses (docs.github.com/en/rest): refs, commits, blobs,
 * trees, file contents and repository webhooks. Plain `fetch` against a configurable base URL
 * (`https://api.github.com`, a GitHub Enterprise Server's `https://host/api/v3`, or a test's local
 * stand-in). Every call has a time limit; a failure is a {@link GithubError} carrying the status.
 */
export interface GithubRepo {
  apiBaseUrl: string;
  owner: string;
  repo: string;
  token: string;
}

/** A failed call to the code host: its HTTP status (0 when it could not be reached). */
export class GithubError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "GithubError";
    this.status = status;
  }
}

/** How long one REST call may take before it counts as failed. */
const requestTimeoutMs = 30_000;

async function call<T>(repo: GithubRepo, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${repo.apiBaseUrl.replace(/\/+$/, "")}/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.repo)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${repo.token}`,
        "x-github-api-version": "2022-11-28",
        "user-agent": "quire-github-sync",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
  } catch (err) {
    throw new GithubError(0, `${method} ${path}: the code host could not be reached (${describe(err)})`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text.slice(0, 200);
    try {
      message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
    } catch {}
    throw new GithubError(response.status, `${method} ${path}: ${response.status} ${message}`);
  }
  if (text === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new GithubError(response.status, `${method} ${path}: the answer is not JSON`);
  }
}

const refPath = (branch: string) => `/git/ref/heads/${branch.split("/").map(encodeURIComponent).join("/")}`;

/** The commit a branch points at (`GET /repos/{owner}/{repo}/git/ref/heads/{branch}`). */
export async function getBranchHead(repo: GithubRepo, branch: string): Promise<string> {
  const ref = await call<{ object?: { sha?: string } }>(repo, "GET", refPath(branch));
  const sha = ref?.object?.sha;
  if (typeof sha !== "string") throw new GithubError(502, "The branch's ref has no commit");
  return sha;
}

/** A commit's tree and message (`GET /repos/{owner}/{repo}/commits/{ref}`). */
export async function getCommit(repo: GithubRepo, sha: string): Promise<{ tree: string; message: string }> {
  const commit = await call<{ commit?: { tree?: { sha?: string }; message?: string } }>(
    repo,
    "GET",
    `/commits/${encodeURIComponent(sha)}`,
  );
  const tree = commit?.commit?.tree?.sha;
  if (typeof tree !== "string") throw new GithubError(502, "The commit has no tree");
  return { tree, message: commit?.commit?.message ?? "" };
}

/** A file's bytes at a commit (`GET /repos/{owner}/{repo}/contents/{path}?ref=`), or null when it is absent or not a file. */
export async function getFileContent(
  repo: GithubRepo,
  path: string,
  ref: string,
): Promise<Uint8Array | null> {
  let file: { type?: string; encoding?: string; content?: string };
  try {
    file = await call(
      repo,
      "GET",
      `/contents/${path.split("/").map(encodeURIComponent).join("/")}?ref=${encodeURIComponent(ref)}`,
    );
  } catch (err) {
    if (err instanceof GithubError && err.status === 404) return null;
    throw err;
  }
  if (file?.type !== "file" || file.encoding !== "base64" || typeof file.content !== "string") return null;
  return base64ToBytes(file.content.replace(/\s+/g, ""));
}

/** Uploads a blob (`POST /repos/{owner}/{repo}/git/blobs`), base64 encoded; answers its sha. */
export async function createBlob(repo: GithubRepo, bytes: Uint8Array): Promise<string> {
  const blob = await call<{ sha: string }>(repo, "POST", "/git/blobs", {
    content: bytesToBase64(bytes),
    encoding: "base64",
  });
  return blob.sha;
}

/** One change of a tree: a file's new blob, or `sha: null` to remove the path. */
export interface TreeChange {
  path: string;
  sha: string | null;
}

/** A tree on top of `baseTree` (`POST /repos/{owner}/{repo}/git/trees` with `base_tree`): paths not named keep. */
export async function createTree(repo: GithubRepo, baseTree: string, changes: TreeChange[]): Promise<string> {
  const tree = await call<{ sha: string }>(repo, "POST", "/git/trees", {
    base_tree: baseTree,
    tree: changes.map((change) => ({ path: change.path, mode: "100644", type: "blob", sha: change.sha })),
  });
  return tree.sha;
}

/** A commit of a tree with one parent (`POST /repos/{owner}/{repo}/git/commits`). */
export async function createCommit(
  repo: GithubRepo,
  input: { message: string; tree: string; parent: string },
): Promise<string> {
  const commit = await call<{ sha: string }>(repo, "POST", "/git/commits", {
    message: input.message,
    tree: input.tree,
    parents: [input.parent],
  });
  return commit.sha;
}

/**
 * Moves a branch to a commit, fast-forward only (`PATCH /repos/{owner}/{repo}/git/refs/heads/{branch}`
 * with `force: false`): GitHub answers 422 when someone pushed in between.
 */
export async function updateBranch(repo: GithubRepo, branch: string, sha: string): Promise<void> {
  await call(repo, "PATCH", `/git/refs/heads/${branch.split("/").map(encodeURIComponent).join("/")}`, {
    sha,
    force: false,
  });
}

/** Registers the push webhook (`POST /repos/{owner}/{repo}/hooks`); answers the hook's id. */
export async function createPushHook(repo: GithubRepo, url: string, secret: string): Promise<number> {
  const hook = await call<{ id: number }>(repo, "POST", "/hooks", {
    name: "web",
    active: true,
    events: ["push"],
    config: { url, content_type: "json", secret, insecure_ssl: "0" },
  });
  if (typeof hook?.id !== "number") throw new GithubError(502, "The hook answer has no id");
  return hook.id;
}

/** Removes a webhook (`DELETE /repos/{owner}/{repo}/hooks/{id}`); one already gone counts as removed. */
export async function deleteHook(repo: GithubRepo, hookId: number): Promise<void> {
  try {
    await call(repo, "DELETE", `/hooks/${hookId}`);
  } catch (err) {
    if (err instanceof GithubError && err.status === 404) return;
    throw err;
  }
}

/**
 * A failed call as the owner's answer: the token refused (401) or the repository or branch unknown
 * to it (404) is a 400 naming the field; anything else (unreachable, 5xx) is 500
 * EXTERNAL_SERVICE_ERROR.
 */
export function ownerError(err: unknown): unknown {
  if (!(err instanceof GithubError)) return err;
  if (err.status === 401) return invalidField("token", "The code host refused this token");
  if (err.status === 404 || err.status === 403)
    return invalidField("repo", "The repository or branch was not found, or the token may not reach it");
  return new EngineError("EXTERNAL_SERVICE_ERROR", `The code host failed: ${err.message}`);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
