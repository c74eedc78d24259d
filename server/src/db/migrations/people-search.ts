import type { Migration } from '../migration.js';

/** 0037–0039: the space-membership order index (issue 4). */
export const peopleSearchMigrations: Migration[] = [];
