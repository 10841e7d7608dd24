import type { Migration } from "kysely";
import * as initial from "./001-initial.js";
import * as threads from "./002-threads.js";
import * as uploads from "./003-uploads.js";
import * as maintenance from "./004-maintenance.js";
import * as collections from "./005-collections.js";
import * as smartCollectionsNav from "./006-smart-collections-nav.js";
import * as smartCollectionsNavFigures from "./006-smart-collections-nav-figures.js";
import * as customUrls from "./007-custom-urls.js";
import * as translations from "./009-translations.js";
import * as search from "./010-search.js";
import * as siteVersion from "./011-site-version.js";
import * as sessions from "./012-sessions.js";
import * as githubSync from "./013-github-sync.js";
import * as telegram from "./014-telegram.js";
import * as searchOutsideWrites from "./015-search-outside-writes.js";
import * as settingsVersion from "./016-settings-version.js";
import * as dropThreadsActivityAny from "./017-drop-threads-activity-any.js";

/**
 * Every migration, in order. Forward-only: a migration is never edited or removed once released;
 * a change is a new entry at the end. @see spec § Versioning rule 4
 */
export const migrations: Record<string, Migration> = {
  "001-initial": initial,
  "002-threads": threads,
  "003-uploads": uploads,
  "004-maintenance": maintenance,
  "005-collections": collections,
  "006-smart-collections-nav": smartCollectionsNav,
  "006-smart-collections-nav-figures": smartCollectionsNavFigures,
  "007-custom-urls": customUrls,
  "009-translations": translations,
  "010-search": search,
  "011-site-version": siteVersion,
  "012-sessions": sessions,
  "013-github-sync": githubSync,
  "014-telegram": telegram,
  "015-search-outside-writes": searchOutsideWrites,
  "016-settings-version": settingsVersion,
  "017-drop-threads-activity-any": dropThreadsActivityAny,
};
