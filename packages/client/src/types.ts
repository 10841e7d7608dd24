/**
 * The client's types, derived from the engine's operations and the route table: nothing here is
 * written per operation. Only types are imported from @quire/core and zod; the client's runtime
 * imports neither.
 */
import type { EngineOperation, Operation } from "@quire/core";
import type * as z from "zod";
import type { routeTable } from "./routes.js";

type RouteTable = typeof routeTable;

/** The id of an operation the HTTP API serves, e.g. `threads.list`. */
export type RoutedOperationId = Extract<EngineOperation["id"], keyof RouteTable>;

type OperationOf<Id> = Extract<EngineOperation, { id: Id }>;

/** A file's bytes as the client sends them: read as a stream, never buffered whole by the client. */
export type ClientBytes =
  | Blob
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Uint8Array
  | ArrayBuffer;

/** The input of an operation as its schema takes it (`z.input`): what the engine accepts in-process. */
export type SchemaInput<Id extends RoutedOperationId> =
  OperationOf<Id> extends Operation<string, infer Input, unknown> ? z.input<Input> : never;

/** Byte fields (those that take a `Uint8Array`) take any {@link ClientBytes} instead of base64 text. */
type WithClientBytes<T> = {
  [K in keyof T]: Uint8Array extends NonNullable<T[K]> ? ClientBytes | Extract<T[K], undefined> : T[K];
};

/**
 * What a client function takes: the schema's input, path parameters included (`{ id, ...body }`);
 * for raw-body (`stream`) and form routes the byte fields take Blobs, streams or bytes.
 */
export type ClientInput<Id extends RoutedOperationId> = RouteTable[Id][number]["input"] extends
  | "stream"
  | "form"
  | "raw"
  ? WithClientBytes<SchemaInput<Id>>
  : SchemaInput<Id>;

/** What a client function resolves to: the operation's result as the HTTP API answers it (JSON). */
export type ClientOutput<Id extends RoutedOperationId> =
  OperationOf<Id> extends Operation<string, z.ZodType, infer Output> ? Output : never;

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request (and, for iterators and uploads, the rest of the walk). */
  signal?: AbortSignal;
  /** Headers for this call, over the client's. */
  headers?: Record<string, string>;
}

/** One operation over HTTP; the input may be left out when every field of it is optional. */
export type ClientFunction<Id extends RoutedOperationId> =
  Record<never, never> extends ClientInput<Id>
    ? (input?: ClientInput<Id>, options?: CallOptions) => Promise<ClientOutput<Id>>
    : (input: ClientInput<Id>, options?: CallOptions) => Promise<ClientOutput<Id>>;

/** The id of a cursor list: its input takes `cursor` and its answer carries `nextCursor`. */
export type PagedOperationId = {
  [Id in RoutedOperationId]: ClientOutput<Id> extends { nextCursor: string | null }
    ? "cursor" extends keyof SchemaInput<Id>
      ? Id
      : never
    : never;
}[RoutedOperationId];

/** The items of one page: the element type of the page's array field. */
export type PageItem<Id extends PagedOperationId> = {
  [K in Exclude<keyof ClientOutput<Id>, "nextCursor">]: ClientOutput<Id>[K] extends readonly (infer Item)[]
    ? Item
    : never;
}[Exclude<keyof ClientOutput<Id>, "nextCursor">];

/** A cursor list's filters: its input without `cursor` (a first cursor may still be given). */
export type IterateInput<Id extends PagedOperationId> = ClientInput<Id>;

/** Walks every page of a cursor list and yields its items. */
export type ClientIterator<Id extends PagedOperationId> =
  Record<never, never> extends ClientInput<Id>
    ? (input?: IterateInput<Id>, options?: CallOptions) => AsyncGenerator<PageItem<Id>, void, undefined>
    : (input: IterateInput<Id>, options?: CallOptions) => AsyncGenerator<PageItem<Id>, void, undefined>;

type GroupOf<Id> = Id extends `${infer Group}.${string}` ? Group : never;

/** `listX` → `iterateX`: `threads.list` → `threads.iterate`, `threads.listPosts` → `threads.iteratePosts`. */
type IteratorName<Name> = Name extends `list${infer Rest}` ? `iterate${Rest}` : never;

/** The functions of one group: `<name>` per operation, `iterate<Rest>` per cursor list `list<Rest>`. */
export type ClientGroup<Group extends string> = {
  [Id in RoutedOperationId as Id extends `${Group}.${infer Name}` ? Name : never]: ClientFunction<Id>;
} & {
  [Id in PagedOperationId as Id extends `${Group}.${infer Name}`
    ? IteratorName<Name>
    : never]: ClientIterator<Id>;
};

/** Every group of operations: `client.posts.create(...)`, `client.threads.iterate(...)`. */
export type ClientGroups = { [Group in GroupOf<RoutedOperationId>]: ClientGroup<Group> };

/** The details a media record takes at upload (`width`, `height`, `alt`, `blurhash`, …). */
export type MediaDetailsInput = Omit<
  SchemaInput<"media.upload">,
  "file" | "filename" | "contentType" | "poster" | "posterContentType"
>;
