import { createNavItem } from "./create-nav-item.js";
import { deleteNavItem } from "./delete-nav-item.js";
import { listNavItems } from "./list-nav-items.js";
import { moveNavItem } from "./move-nav-item.js";
import { updateNavItem } from "./update-nav-item.js";

/** The header navigation operations. @see spec § Navigation items */
export const navOperations = [
  listNavItems,
  createNavItem,
  updateNavItem,
  moveNavItem,
  deleteNavItem,
] as const;

export type { NavItem } from "./nav-view.js";
