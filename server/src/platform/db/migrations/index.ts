import type { Migration } from '../migration.js';
import { baseMigrations } from './base.js';
import { discoveryTrustMigrations } from './discovery-trust.js';
import { peopleSearchMigrations } from './people-search.js';
import { deliveryMigrations } from './recognition-delivery.js';
import { syncThroughputMigrations } from './sync-throughput.js';
import { enrollmentTrustMigrations } from './enrollment-trust.js';
import { authHardeningMigrations } from './auth-hardening.js';
import { faceMigrations } from './faces.js';
import { photoVariantsMigrations } from './photo-variants.js';
import { deliveryHistoryMigrations } from './delivery-history.js';
import { siteSafetyMigrations } from './site-safety.js';
import { acceptanceReportMigrations } from './acceptance-reports.js';
import { accountsRound3Migrations } from './accounts-round3.js';
import { deviceClockMigrations } from './device-clocks.js';
import { workingOrganizationMigrations } from './working-organization.js';
import { languageMigrations } from './languages.js';
import { claimEraMigrations } from './claim-era.js';
import { auditMessageMigrations } from './audit-messages.js';
import { importMessageMigrations } from './import-messages.js';
import { syncMessageMigrations } from './sync-messages.js';

/**
 * The schema's whole history, in order, one DDL change each. Each file holds a numbered range;
 * released entries are never edited or reordered, and new ones go at the end of their file.
 */
export const migrations: Migration[] = [
  ...baseMigrations,
  ...peopleSearchMigrations,
  ...deliveryMigrations,
  ...syncThroughputMigrations,
  ...discoveryTrustMigrations,
  ...enrollmentTrustMigrations,
  ...authHardeningMigrations,
  ...faceMigrations,
  ...photoVariantsMigrations,
  ...deliveryHistoryMigrations,
  ...siteSafetyMigrations,
  ...acceptanceReportMigrations,
  ...accountsRound3Migrations,
  ...workingOrganizationMigrations,
  ...deviceClockMigrations,
  ...languageMigrations,
  ...claimEraMigrations,
  ...auditMessageMigrations,
  ...importMessageMigrations,
  ...syncMessageMigrations,
];
