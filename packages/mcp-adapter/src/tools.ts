import { type Engine, type EngineOperation, inputJsonSchema, type OperationId } from "@quire/core";

/** The groups of the spec's tool table. @see docs/mcp.md */
export type ToolGroup = "posts" | "threads" | "media" | "attachments" | "collections" | "settings";

/**
 * One row of the tool table: the tool's name, its group, the operation it runs, and how MCP
 * arguments are named where they differ from the operation's input (a renaming, never a rule).
 */
export interface ToolSpec {
  name: `site_${string}`;
  group: ToolGroup;
  operation: OperationId;
  /** MCP argument name → operation input name (e.g. `contentBase64` → `file`). */
  rename?: Readonly<Record<string, string>>;
  /** When set, only these operation input fields are offered as arguments (by their MCP names). */
  only?: readonly string[];
  /**
   * Base64 byte arguments whose decoded size is checked against the engine's upload limit from
   * their length, before the operation decodes them.
   */
  base64?: readonly string[];
  /** What an agent needs to know besides the operation's own description: arguments, paging. */
  guide: string;
}

const paging =
  "Pass the answer's nextCursor as cursor to read the next page; nextCursor is null on the last page.";
const markdown =
  'content: "markdown" returns each post\'s bodyMarkdown in place of body, bodyHtml and bodyText.';

/**
 * The spec's 24 tools, each once, with the operation it runs. An id that is not an operation of the
 * engine fails to compile. @see spec § MCP
 */
// biome-ignore format: a table reads best one tool per entry
export const toolTable = [
  { name: "site_posts_list", group: "posts", operation: "posts.list", guide: `Filters: format, status (published by default; draft lists drafts by last edit). ${markdown} ${paging}` },
  { name: "site_posts_get", group: "posts", operation: "posts.get", guide: `Takes the post's id (pst_…); answers the post with collectionIds, ordered attachments and threadPosition. ${markdown}` },
  { name: "site_posts_search", group: "posts", operation: "posts.search", guide: "Takes q (every word must occur; at most 200 characters) and limit (1 to 50, default 20); answers what GET /api/search answers, best matches first, private posts included." },
  { name: "site_posts_create", group: "posts", operation: "posts.create", guide: "format is note, link (title and url required) or quote (quoteText required). Send the body as bodyMarkdown (Markdown) or body (editor JSON), not both. replyToId makes a reply in that post's Thread. Answers the created post." },
  { name: "site_posts_update", group: "posts", operation: "posts.update", guide: "Takes id and only the fields to change; null clears a field; attachments, when sent, replace all of them in order. Answers the updated post." },
  { name: "site_posts_delete", group: "posts", operation: "posts.delete", guide: "Takes id. Deletes the post and its attachment files; deleting a Thread root deletes all its replies too. Cannot be undone." },
  { name: "site_threads_list", group: "threads", operation: "threads.list", guide: `Every GET /api/threads filter is an argument: sort, visibility, format, collection (slugs), year, media, title, replies, lang, status. fold: true adds each Thread's fold (first and latest replies with a gap cursor). ${markdown} ${paging}` },
  { name: "site_threads_get", group: "threads", operation: "threads.get", guide: `Takes the id of any post of the Thread; answers the Thread (root, figures). fold: true adds the fold. ${markdown}` },
  { name: "site_threads_list_posts", group: "threads", operation: "threads.listPosts", guide: `Takes the id of any post of the Thread; lists root then replies in order. status selects published (default) or draft posts. cursor also takes a fold's gap.cursor. ${markdown} ${paging}` },
  { name: "site_media_list", group: "media", operation: "media.list", guide: `mimePrefix filters by type (e.g. "image/"). ${paging}` },
  { name: "site_media_get", group: "media", operation: "media.get", guide: "Takes the media id (med_…); answers its media record." },
  { name: "site_media_upload", group: "media", operation: "media.upload", rename: { contentBase64: "file" }, only: ["filename", "contentType", "contentBase64", "alt", "poster", "posterContentType"], base64: ["contentBase64", "poster"], guide: "Sends a whole file as base64 in contentBase64, with filename and contentType (e.g. image/jpeg); alt is optional, poster is a video's WebP poster frame in base64. The upload size limit applies to the decoded bytes. Answers the media record; attach it to a post with its id." },
  { name: "site_media_update", group: "media", operation: "media.update", guide: "Takes id and alt; empty alt clears it. Answers the media record." },
  { name: "site_media_delete", group: "media", operation: "media.delete", guide: "Takes id. Deletes the media record and its stored files; posts lose the attachment. Cannot be undone." },
  { name: "site_attachments_get_content", group: "attachments", operation: "attachments.getContent", guide: "Takes a text attachment's id (med_…); answers its Markdown content, summary and length." },
  { name: "site_collections_list", group: "collections", operation: "collections.list", guide: "Answers { collections, smartCollections, directoryItems } in directory order, with Thread counts; view: \"compose\" sorts collections by recent activity only; lang counts one language's Threads." },
  { name: "site_collections_get", group: "collections", operation: "collections.get", guide: "Takes the collection's id (col_…)." },
  { name: "site_collections_create", group: "collections", operation: "collections.create", guide: "Takes slug and title (description and sortOrder optional); a slug used by a post or another collection is a CONFLICT. Answers the collection." },
  { name: "site_collections_update", group: "collections", operation: "collections.update", guide: "Takes id and only the fields to change; description: null clears it. Answers the collection." },
  { name: "site_collections_delete", group: "collections", operation: "collections.delete", guide: "Takes id. The collection goes; its Threads stay. Cannot be undone." },
  { name: "site_collections_add_thread", group: "collections", operation: "collections.addThread", guide: "Takes the collection's id and threadId, the id of any post of the Thread; the whole Thread joins." },
  { name: "site_collections_remove_thread", group: "collections", operation: "collections.removeThread", guide: "Takes the collection's id and threadId, the id of any post of the Thread; the whole Thread leaves." },
  { name: "site_settings_get", group: "settings", operation: "settings.get", guide: "Takes no arguments." },
  { name: "site_settings_update", group: "settings", operation: "settings.update", guide: "The arguments are setting keys (such as SITE_NAME) with string values; answers the settings, with keys it does not store in rejectedKeys." },
] as const satisfies readonly ToolSpec[];

/** The name of one of the tools. */
export type ToolName = (typeof toolTable)[number]["name"];

/** A tool's MCP annotations. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** An MCP tool as `tools/list` describes it, with the operation it runs. */
export interface ToolDefinition {
  spec: ToolSpec;
  operation: EngineOperation;
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, object>; required?: string[] } & Record<
    string,
    unknown
  >;
  annotations: Annotations;
  /** The MCP argument names this tool accepts; null when any name is one (a map of keys). */
  argumentNames: ReadonlySet<string> | null;
  /** Operation input name → MCP argument name, for naming fields in errors. */
  argumentOf: ReadonlyMap<string, string>;
}

const cache = new WeakMap<Engine["operations"], ToolDefinition[]>();

/** Every tool of the table, derived from the engine's operations. */
export function toolDefinitions(engine: Pick<Engine, "operations">): ToolDefinition[] {
  const known = cache.get(engine.operations);
  if (known) return known;
  const tools = toolTable.map((spec: ToolSpec) => defineTool(spec, engine));
  cache.set(engine.operations, tools);
  return tools;
}

function defineTool(spec: ToolSpec, engine: Pick<Engine, "operations">): ToolDefinition {
  const operation = engine.operations.get(spec.operation);
  if (!operation) throw new Error(`Tool ${spec.name} names ${spec.operation}, which the engine lacks`);
  const schema = inputJsonSchema(operation.input) as {
    type?: string;
    properties?: Record<string, object>;
    required?: string[];
    additionalProperties?: unknown;
  };
  if (schema.type !== "object") {
    throw new Error(`The input of ${spec.operation} is not an object schema; a tool needs one`);
  }
  // A map of keys (settings) takes keys beyond those it lists: every name is an argument.
  if (
    !schema.properties ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
  ) {
    return openTool(spec, operation, schema);
  }
  const toArgument = new Map<string, string>();
  for (const [argument, field] of Object.entries(spec.rename ?? {})) toArgument.set(field, argument);
  const nameOf = (field: string) => toArgument.get(field) ?? field;
  const properties: Record<string, object> = {};
  for (const [field, property] of Object.entries(schema.properties)) {
    const argument = nameOf(field);
    if (spec.only && !spec.only.includes(argument)) continue;
    properties[argument] = property;
  }
  const required = (schema.required ?? []).map(nameOf).filter((name) => name in properties);
  const argumentOf = new Map<string, string>();
  for (const field of Object.keys(schema.properties)) argumentOf.set(field, nameOf(field));
  return {
    spec,
    operation,
    name: spec.name,
    title: titleOf(spec.name),
    description: `${operation.description} ${spec.guide}`,
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    annotations: annotationsOf(operation),
    argumentNames: new Set(Object.keys(properties)),
    argumentOf,
  };
}

/**
 * A tool whose input is a map of keys to values (settings): the operation's schema as it is, every
 * key an argument; the operation reports the keys it does not take.
 */
function openTool(
  spec: ToolSpec,
  operation: EngineOperation,
  schema: Record<string, unknown>,
): ToolDefinition {
  const { $schema: _, ...inputSchema } = schema;
  return {
    spec,
    operation,
    name: spec.name,
    title: titleOf(spec.name),
    description: `${operation.description} ${spec.guide}`,
    inputSchema: { properties: {}, ...inputSchema, type: "object" },
    annotations: annotationsOf(operation),
    argumentNames: null,
    argumentOf: new Map(),
  };
}

/** MCP annotations from the operation's hints; a read is idempotent too. */
function annotationsOf(operation: EngineOperation): Annotations {
  const hints = operation.hints ?? {};
  return {
    readOnlyHint: hints.readOnly === true,
    destructiveHint: hints.destructive === true,
    idempotentHint: hints.idempotent === true || hints.readOnly === true,
    openWorldHint: false,
  };
}

/** `site_threads_list_posts` → `Threads: list posts`. */
function titleOf(name: string): string {
  const [group = "", ...rest] = name.replace(/^site_/, "").split("_");
  return `${group.charAt(0).toUpperCase()}${group.slice(1)}: ${rest.join(" ")}`;
}
