import type { Migration } from '../migration.js';
import { baseMigrations } from './base.js';
import { discoveryTrustMigrations } from './discovery-trust.js';
import { peopleSearchMigrations } from './people-search.js';
import { deliveryMigrations } from './recognition-delivery.js';
import { syncRobustnessMigrations } from './sync-robustness.js';
import { syncThroughputMigrations } from './sync-throughput.js';
import { enrollmentTrustMigrations } from './enrollment-trust.js';
import { authHardeningMigrations } from './auth-hardening.js';
import { faceMigrations } from './faces.js';
import { photoVariantsMigrations } from './photo-variants.js';
import { deliveryHistoryMigrations } from './delivery-history.js';

/**
 * The schema's whole history, in order, one DDL change each. Each file holds a numbered range;
 * released entries are never edited or reordered, and new ones go at the end of their file.
 */
export const migrations: Migration[] = [
  ...baseMigrations,
  ...peopleSearchMigrations,
  ...deliveryMigrations,
  ...syncRobustnessMigrations,
  ...syncThroughputMigrations,
  ...discoveryTrustMigrations,
  ...enrollmentTrustMigrations,
  ...authHardeningMigrations,
  ...faceMigrations,
  ...photoVariantsMigrations,
  ...deliveryHistoryMigrations,
];
