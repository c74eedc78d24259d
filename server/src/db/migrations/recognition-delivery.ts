import type { Migration } from '../migration.js';

/** 0040–0042: panel delivery claims across processes (issue 5). */
export const deliveryMigrations: Migration[] = [];
