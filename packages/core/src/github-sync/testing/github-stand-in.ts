import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the part of GitHub's REST API the sync calls, for tests: the code host is
 * not reachable from the test machines. It speaks the documented subset on 127.0.0.1, with the
 * request and answer shapes of docs.github.com/en/rest (git refs, commits, blobs, trees, contents,
 * repository webhooks): Bearer tokens (401 "Bad credentials"), 404 for unknown repositories, refs
 * and files, 422 for a ref update that is not a fast-forward. Git objects are kept in memory;
 * blob ids are real git blob hashes, tree and commit ids are hashes of their content (not git's
 * encoding, which nothing here depends on). Trees are flat maps from path to blob.
 */
export interface StandInRepo {
  token: string;
  blobs: Map<string, Buffer>;
  trees: Map<string, Map<string, string>>;
  commits: Map<string, { tree: string; message: string; parents: string[] }>;
  refs: Map<string, string>;
  hooks: Map<number, { url: string; secret: string; events: string[]; contentType: string }>;
}

export interface GithubStandIn {
  /** `http://127.0.0.1:<port>`: the `apiBaseUrl` to connect with. */
  url: string;
  /** Every request received, in order: `GET /repos/o/r/git/ref/heads/main`. */
  requests: string[];
  repo(owner: string, name: string): StandInRepo;
  /** Creates a repository with one commit holding `files` on `branch`. */
  createRepo(
    owner: string,
    name: string,
    options: { token: string; branch?: string; files?: Record<string, string> },
  ): StandInRepo;
  /** A commit by someone else (a user's push): files set (text) or removed (null) on top of the branch. */
  pushCommit(
    owner: string,
    name: string,
    branch: string,
    files: Record<string, string | null>,
    message: string,
  ): { before: string; after: string };
  /** The files of a branch's head as text, by path. */
  files(owner: string, name: string, branch: string): Map<string, string>;
  /** The commits of a branch, newest first. */
  log(owner: string, name: string, branch: string): { sha: string; message: string }[];
  /** Answers every request with this status until set back to null (simulates an outage). */
  failWith: number | null;
  /** Runs once just before the next ref update is judged (someone else pushing in between). */
  beforeNextRefUpdate: (() => void) | null;
  close(): Promise<void>;
}

const sha1 = (data: Buffer | string) => createHash("sha1").update(data).digest("hex");
const blobId = (bytes: Buffer) => sha1(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]));

export async function startGithubStandIn(): Promise<GithubStandIn> {
  const repos = new Map<string, StandInRepo>();
  const requests: string[] = [];
  let nextHookId = 1;

  const storeTree = (repo: StandInRepo, entries: Map<string, string>): string => {
    const sha = sha1(JSON.stringify([...entries].sort(([a], [b]) => (a < b ? -1 : 1))));
    repo.trees.set(sha, new Map(entries));
    return sha;
  };
  const storeCommit = (repo: StandInRepo, tree: string, message: string, parents: string[]): string => {
    const sha = sha1(JSON.stringify({ tree, message, parents, n: repo.commits.size }));
    repo.commits.set(sha, { tree, message, parents });
    return sha;
  };
  const storeBlob = (repo: StandInRepo, bytes: Buffer): string => {
    const sha = blobId(bytes);
    repo.blobs.set(sha, bytes);
    return sha;
  };
  const treeOfRef = (repo: StandInRepo, ref: string): Map<string, string> | undefined => {
    const commit = repo.commits.get(repo.refs.get(ref) ?? ref);
    return commit ? repo.trees.get(commit.tree) : undefined;
  };

  const standIn: GithubStandIn = {
    url: "",
    requests,
    failWith: null,
    beforeNextRefUpdate: null,
    repo(owner, name) {
      const repo = repos.get(`${owner}/${name}`.toLowerCase());
      if (!repo) throw new Error(`No stand-in repository ${owner}/${name}`);
      return repo;
    },
    createRepo(owner, name, options) {
      const repo: StandInRepo = {
        token: options.token,
        blobs: new Map(),
        trees: new Map(),
        commits: new Map(),
        refs: new Map(),
        hooks: new Map(),
      };
      const entries = new Map<string, string>();
      for (const [path, text] of Object.entries(options.files ?? {}))
        entries.set(path, storeBlob(repo, Buffer.from(text)));
      const commit = storeCommit(repo, storeTree(repo, entries), "Initial commit", []);
      repo.refs.set(options.branch ?? "main", commit);
      repos.set(`${owner}/${name}`.toLowerCase(), repo);
      return repo;
    },
    pushCommit(owner, name, branch, files, message) {
      const repo = standIn.repo(owner, name);
      const before = repo.refs.get(branch) as string;
      const entries = new Map(treeOfRef(repo, branch));
      for (const [path, text] of Object.entries(files)) {
        if (text === null) entries.delete(path);
        else entries.set(path, storeBlob(repo, Buffer.from(text)));
      }
      const after = storeCommit(repo, storeTree(repo, entries), message, [before]);
      repo.refs.set(branch, after);
      return { before, after };
    },
    files(owner, name, branch) {
      const repo = standIn.repo(owner, name);
      const out = new Map<string, string>();
      for (const [path, blob] of treeOfRef(repo, branch) ?? [])
        out.set(path, (repo.blobs.get(blob) as Buffer).toString());
      return out;
    },
    log(owner, name, branch) {
      const repo = standIn.repo(owner, name);
      const out: { sha: string; message: string }[] = [];
      let sha: string | undefined = repo.refs.get(branch);
      while (sha) {
        const commit = repo.commits.get(sha);
        if (!commit) break;
        out.push({ sha, message: commit.message });
        sha = commit.parents[0];
      }
      return out;
    },
    close: async () => {},
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    requests.push(`${request.method} ${url.pathname}`);
    const send = (status: number, body?: unknown) => {
      response.writeHead(
        status,
        body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
      );
      response.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (standIn.failWith !== null) return send(standIn.failWith, { message: "Service unavailable" });
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!match) return send(404, { message: "Not Found" });
    const repo = repos.get(
      `${decodeURIComponent(match[1] as string)}/${decodeURIComponent(match[2] as string)}`.toLowerCase(),
    );
    const auth = request.headers.authorization ?? "";
    if (repo && auth !== `Bearer ${repo.token}` && auth !== `token ${repo.token}`)
      return send(401, { message: "Bad credentials" });
    if (!repo) return send(404, { message: "Not Found" });
    const rest = match[3] as string;
    // biome-ignore lint/suspicious/noExplicitAny: request bodies are checked field by field below
    const body = text === "" ? {} : (JSON.parse(text) as Record<string, any>);
    const method = request.method ?? "GET";
    let m: RegExpExecArray | null;

    m = method === "GET" ? /^\/git\/ref\/heads\/(.+)$/.exec(rest) : null;
    if (m) {
      const branch = decodeURIComponent(m[1] as string);
      const sha = repo.refs.get(branch);
      if (!sha) return send(404, { message: "Not Found" });
      return send(200, { ref: `refs/heads/${branch}`, object: { sha, type: "commit" } });
    }
    m = method === "GET" ? /^\/commits\/([^/]+)$/.exec(rest) : null;
    if (m) {
      const ref = decodeURIComponent(m[1] as string);
      const sha = repo.refs.get(ref) ?? ref;
      const commit = repo.commits.get(sha);
      if (!commit) return send(404, { message: "No commit found for SHA" });
      return send(200, {
        sha,
        commit: { message: commit.message, tree: { sha: commit.tree } },
        parents: commit.parents.map((parent) => ({ sha: parent })),
      });
    }
    m = method === "GET" ? /^\/contents\/(.+)$/.exec(rest) : null;
    if (m) {
      const path = decodeURIComponent(m[1] as string);
      const tree = treeOfRef(repo, url.searchParams.get("ref") ?? "main");
      const blob = tree?.get(path);
      if (!blob) return send(404, { message: "Not Found" });
      const bytes = repo.blobs.get(blob) as Buffer;
      // GitHub wraps the base64 at 60 characters.
      const content = (bytes.toString("base64").match(/.{1,60}/g) ?? []).join("\n");
      return send(200, {
        type: "file",
        encoding: "base64",
        size: bytes.length,
        name: path.split("/").pop(),
        path,
        sha: blob,
        content,
      });
    }
    m = method === "PUT" ? /^\/contents\/(.+)$/.exec(rest) : null;
    if (m) {
      const path = decodeURIComponent(m[1] as string);
      const branch = typeof body.branch === "string" ? body.branch : "main";
      const { after } = standIn.pushCommit(
        match[1] as string,
        match[2] as string,
        branch,
        { [path]: Buffer.from(String(body.content ?? ""), "base64").toString() },
        String(body.message ?? ""),
      );
      return send(200, {
        content: { path, sha: treeOfRef(repo, branch)?.get(path) },
        commit: { sha: after },
      });
    }
    if (method === "POST" && rest === "/git/blobs") {
      if (typeof body.content !== "string") return send(422, { message: "Invalid request" });
      const bytes =
        body.encoding === "base64" ? Buffer.from(body.content, "base64") : Buffer.from(body.content);
      return send(201, { sha: storeBlob(repo, bytes) });
    }
    if (method === "POST" && rest === "/git/trees") {
      const base =
        typeof body.base_tree === "string" ? repo.trees.get(body.base_tree) : new Map<string, string>();
      if (!base || !Array.isArray(body.tree)) return send(422, { message: "Invalid tree" });
      const entries = new Map(base);
      for (const entry of body.tree as { path: string; sha: string | null }[]) {
        if (entry.sha === null) entries.delete(entry.path);
        else if (!repo.blobs.has(entry.sha)) return send(422, { message: `Invalid sha for ${entry.path}` });
        else entries.set(entry.path, entry.sha);
      }
      return send(201, { sha: storeTree(repo, entries) });
    }
    if (method === "POST" && rest === "/git/commits") {
      if (!repo.trees.has(body.tree) || !Array.isArray(body.parents))
        return send(422, { message: "Invalid commit" });
      const sha = storeCommit(repo, body.tree, String(body.message ?? ""), body.parents);
      return send(201, {
        sha,
        tree: { sha: body.tree },
        message: body.message,
        parents: body.parents.map((p: string) => ({ sha: p })),
      });
    }
    m = method === "PATCH" ? /^\/git\/refs\/heads\/(.+)$/.exec(rest) : null;
    if (m) {
      const branch = decodeURIComponent(m[1] as string);
      const interloper = standIn.beforeNextRefUpdate;
      standIn.beforeNextRefUpdate = null;
      interloper?.();
      const current = repo.refs.get(branch);
      const commit = repo.commits.get(body.sha);
      if (!current || !commit) return send(422, { message: "Reference does not exist" });
      if (!body.force && !commit.parents.includes(current))
        return send(422, { message: "Update is not a fast forward" });
      repo.refs.set(branch, body.sha);
      return send(200, { ref: `refs/heads/${branch}`, object: { sha: body.sha, type: "commit" } });
    }
    if (method === "POST" && rest === "/hooks") {
      const config = body.config ?? {};
      if (typeof config.url !== "string") return send(422, { message: "Validation Failed" });
      const id = nextHookId++;
      repo.hooks.set(id, {
        url: config.url,
        secret: config.secret,
        events: body.events ?? ["push"],
        contentType: config.content_type,
      });
      return send(201, {
        id,
        type: "Repository",
        name: "web",
        active: true,
        events: body.events,
        config: { url: config.url, content_type: config.content_type, insecure_ssl: "0" },
      });
    }
    m = method === "DELETE" ? /^\/hooks\/(\d+)$/.exec(rest) : null;
    if (m) {
      if (!repo.hooks.delete(Number(m[1]))) return send(404, { message: "Not Found" });
      return send(204);
    }
    return send(404, { message: "Not Found" });
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((err) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ message: String(err) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return standIn;
}

/**
 * Sends this process's `fetch` calls to GitHub's API address (`https://api.github.com` by default)
 * to the stand-in instead, so a scenario can use the real default base URL without the network.
 * Returns the function that restores `fetch`.
 */
export function interceptGithubApi(standIn: GithubStandIn, base = "https://api.github.com"): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(`${base}/`)) return original(`${standIn.url}${url.slice(base.length)}`, init);
    return original(input, init);
  }) as typeof fetch;
  return () => {
    globalThis.fetch = original;
  };
}
