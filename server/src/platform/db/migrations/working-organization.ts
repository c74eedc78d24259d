import { DataTypes, type Migration } from '../migration.js';

/** 0210–0219: a superadmin works in one organization at a time (issue 30, item 13). */
export const workingOrganizationMigrations: Migration[] = [
  {
    name: '0210-add-sessions-organization-id',
    // The organization a superadmin's session works in (every page and every new row); null
    // means all organizations, as before. Kept per session, not per account: two windows of
    // one superadmin may work in two organizations. Organizations are never deleted, and the
    // id is checked when it is chosen, so no foreign key is needed on this short-lived row.
    up: ({ qi }) =>
      qi.addColumn('sessions', 'organization_id', { type: DataTypes.STRING(36), allowNull: true }),
    down: ({ qi }) => qi.removeColumn('sessions', 'organization_id'),
  },
];
