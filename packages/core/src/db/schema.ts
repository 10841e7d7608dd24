import type { ColumnType } from "kysely";

/** A column the database fills with a default when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** A post row. Thread-level figures live on the root row. @see DESIGN § Database */
export interface PostsTable {
  id: string;
  format: string;
  status: string;
  /** Authoritative on the root; a reply's visibility is always read through its root. */
  visibility: string;
  slug: string;
  title: string | null;
  url: string | null;
  source_name: string | null;
  source_url: string | null;
  quote_text: string | null;
  summary: string | null;
  rating: number | null;
  display_title: string;
  body: string | null;
  body_html: string | null;
  body_text: string | null;
  body_markdown: string | null;
  reply_to_id: string | null;
  thread_id: string;
  language: string | null;
  quiet_reply: Defaulted<number>;
  pinned_at: number | null;
  featured_at: number | null;
  published_at: number | null;
  created_at: number;
  updated_at: number;
  /** Root only: published posts in the Thread, root included. */
  thread_post_count: Defaulted<number>;
  /** Root only: published replies in the Thread. */
  thread_reply_count: Defaulted<number>;
  /** Root only: newest published post time, quiet replies excluded. */
  last_activity_at: number;
  /** Root only: newest published post time, quiet replies included. */
  thread_updated_at: number;
  /** Root only: bit set of attachment kinds on the root (see media kinds). */
  media_kinds: Defaulted<number>;
  /** The oldest custom URL path of the post, when it has one (its permalink). */
  permalink_path: string | null;
  preview_kind: string | null;
  preview_provider: string | null;
  preview_image_url: string | null;
  /** Root only: the translation group the Thread belongs to (migration 009); null without one. */
  translation_group_id: Defaulted<string | null>;
}

/** A stored file: an uploaded media item or a text attachment. */
export interface MediaTable {
  id: string;
  post_id: string | null;
  position: number | null;
  type: string;
  media_kind: string;
  mime_type: string;
  original_name: string;
  size: number;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  alt: string | null;
  blurhash: string | null;
  waveform: string | null;
  summary: string | null;
  chars: number | null;
  /** Text attachments keep their Markdown here too, so reads need no storage round trip. */
  text_content: string | null;
  storage_key: string;
  poster_key: string | null;
  preview_key: string | null;
  created_at: number;
  updated_at: number;
}

/** The site's root address namespace: one row per taken path, guarded by the primary key. */
export interface SiteAddressesTable {
  path: string;
  owner_type: string;
  owner_id: string;
}

/** Custom URLs: aliases of posts and collections, and redirects. */
export interface CustomUrlsTable {
  id: string;
  path: string;
  target_type: string;
  target_id: string | null;
  to_path: string | null;
  redirect_type: number | null;
  created_at: number;
}

/** API tokens: only a hash of the secret is stored. */
export interface ApiTokensTable {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
  last_used_at: number | null;
}

/** The site owner's password (one row, id `owner`): a scrypt hash in PHC form (sessions/password-hash.ts). */
export interface OwnerCredentialsTable {
  id: string;
  password_hash: string;
  updated_at: number;
}

/** Browser sessions, keyed by the SHA-256 of the session secret; signing out deletes the row. */
export interface SessionsTable {
  token_hash: string;
  created_at: number;
  expires_at: number;
}

/** Site settings as JSON values by key. */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

/** A resumable upload: `open` until completed, aborted or expired. @see spec § Upload session */
export interface UploadSessionsTable {
  id: string;
  state: string;
  transport: string;
  filename: string;
  mime_type: string;
  media_kind: string;
  size: number;
  /** Base64 SHA-256 the client declared, verified before the media record exists. */
  checksum_sha256: string | null;
  /** The media record's ID, fixed at init so the storage key is known up front. */
  media_id: string;
  storage_key: string;
  poster_key: string | null;
  multipart_upload_id: string | null;
  part_size: number | null;
  /** Relay only: bytes of the body stored so far (null until a body arrived whole). */
  received_size: number | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

/** Where a background job resumes (upload cleanup's walk through the store), by job name. */
export interface MaintenanceCursorsTable {
  name: string;
  position: string;
  updated_at: number;
}

/** A part a multipart relay has stored, with the ETag the store gave it. */
export interface UploadPartsTable {
  session_id: string;
  part_number: number;
  etag: string;
  size: number;
}

/** A smart collection: conditions over Threads (JSON in `selection`) and an address. */
export interface SmartCollectionsTable {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  selection: string;
  sort_order: string;
  layout: string | null;
  created_at: number;
  updated_at: number;
}

/** A header navigation item; the target column its `type` names is set, the others are null. */
export interface NavItemsTable {
  id: string;
  type: string;
  system_key: string | null;
  collection_id: string | null;
  smart_collection_id: string | null;
  post_id: string | null;
  /** The author's label; "" follows the target's title. */
  label: string;
  /** `link` and `system` items only; a target's address is read from the target. */
  url: string | null;
  position: string;
  created_at: number;
  updated_at: number;
}

/** The one row navigation writes lock first (id `nav`). */
export interface NavLockTable {
  id: string;
}

/** Write counters bumped by triggers; `threads` counts writes to posts and collection memberships. */
export interface ContentVersionsTable {
  name: string;
  version: number;
}

/**
 * The folded search text of a published post (drafts have no row), kept in step by the post
 * writes. SQLite adds an integer `id` the FTS5 index points at. @see docs/search.md
 */
export interface PostSearchTable {
  post_id: string;
  search_text: string;
}

/** A hand-tagged collection of Threads. */
export interface CollectionsTable {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  sort_order: string;
  created_at: number;
  updated_at: number;
}

/**
 * A Thread in a collection, keyed by the Thread's root ID, with a copy of the root's status,
 * language ('' for none) and last activity kept in step by collections/memberships.ts.
 */
export interface CollectionThreadsTable {
  collection_id: string;
  thread_id: string;
  created_at: number;
  position: string | null;
  pinned_at: number | null;
  thread_status: string;
  thread_language: string;
  thread_activity_at: number;
}

/** Per collection and root language ('' for none): published Threads and their newest activity. */
export interface CollectionFiguresTable {
  collection_id: string;
  language: string;
  thread_count: number;
  recent_activity_at: number;
}

/** A place in the collection directory: a collection, a smart collection, a divider or a link. */
export interface DirectoryItemsTable {
  id: string;
  type: string;
  collection_id: string | null;
  smart_collection_id: string | null;
  label: string | null;
  url: string | null;
  description: string | null;
  /** Fractional ordering key, compared as plain (byte-order) strings. */
  position: string;
  created_at: number;
  updated_at: number;
}

/** One row ('directory') every directory write locks first. */
export interface DirectoryLockTable {
  id: string;
}

/** The chat-bot's one row (id `bot`): token, webhook secret and address (docs/telegram.md). */
export interface TelegramBotTable {
  id: string;
  bot_token: string;
  bot_username: string | null;
  webhook_secret: string;
  webhook_url: string;
  api_base_url: string;
  connected_at: number;
}

/** A one-time code a chat sends as `/start <code>` to bind itself, until `expires_at`. */
export interface TelegramBindCodesTable {
  code: string;
  expires_at: number;
  created_at: number;
}

/** A chat whose messages are published. */
export interface TelegramChatsTable {
  chat_id: string;
  chat_type: string;
  title: string | null;
  bound_at: number;
}

/** A received update, claimed by its `update_id`: `processing`, then `done` or `failed`. */
export interface TelegramUpdatesTable {
  update_id: number;
  state: string;
  chat_id: string | null;
  post_id: string | null;
  error: string | null;
  claimed_at: number;
  finished_at: number | null;
}

/** An album (`<chat id>:<media_group_id>`): the post its messages join, and its writers' lease. */
export interface TelegramAlbumsTable {
  album_key: string;
  post_id: string | null;
  busy_until: number | null;
  created_at: number;
}

/** The code-host connection (one row, id `github`): repository, branch, token, webhook secret (github-sync/). */
export interface GithubSyncConnectionTable {
  id: string;
  api_base_url: string;
  owner: string;
  repo: string;
  branch: string;
  token: string;
  webhook_secret: string;
  webhook_url: string;
  hook_id: number | null;
  debounce_ms: number;
  last_synced_commit: string | null;
  last_synced_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The files the last outbound sync wrote to the repository, with their git blob hashes. */
export interface GithubSyncFilesTable {
  path: string;
  blob_sha: string;
}

/** Webhook deliveries seen, keyed by `X-GitHub-Delivery`; a push also by its head commit. */
export interface GithubSyncDeliveriesTable {
  delivery_id: string;
  event: string;
  head_commit: string | null;
  outcome: string;
  received_at: number;
}

/** Every table the engine reads and writes. */
export interface Database {
  posts: PostsTable;
  media: MediaTable;
  site_addresses: SiteAddressesTable;
  custom_urls: CustomUrlsTable;
  api_tokens: ApiTokensTable;
  settings: SettingsTable;
  upload_sessions: UploadSessionsTable;
  upload_parts: UploadPartsTable;
  maintenance_cursors: MaintenanceCursorsTable;
  post_search: PostSearchTable;
  smart_collections: SmartCollectionsTable;
  nav_items: NavItemsTable;
  nav_lock: NavLockTable;
  content_versions: ContentVersionsTable;
  collections: CollectionsTable;
  collection_threads: CollectionThreadsTable;
  collection_figures: CollectionFiguresTable;
  directory_items: DirectoryItemsTable;
  directory_lock: DirectoryLockTable;
  owner_credentials: OwnerCredentialsTable;
  sessions: SessionsTable;
  telegram_bot: TelegramBotTable;
  telegram_bind_codes: TelegramBindCodesTable;
  telegram_chats: TelegramChatsTable;
  telegram_updates: TelegramUpdatesTable;
  telegram_albums: TelegramAlbumsTable;
  github_sync_connection: GithubSyncConnectionTable;
  github_sync_files: GithubSyncFilesTable;
  github_sync_deliveries: GithubSyncDeliveriesTable;
}
