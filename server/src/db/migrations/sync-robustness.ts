import type { Migration } from '../migration.js';

/** 0043–0046: synchronization indexes and state (issue 5). */
export const syncRobustnessMigrations: Migration[] = [];
