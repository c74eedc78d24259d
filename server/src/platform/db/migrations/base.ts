import {
  addForeignKeyIndex,
  addIndex,
  addIndexOverForeignKey,
  col,
  DataTypes,
  type Migration,
  newTable,
} from '../migration.js';

/** 0001–0036: the schema as the first issues left it (released: never edited). */
export const baseMigrations: Migration[] = [
  {
    name: '0001-create-organizations',
    ...newTable('organizations', {
      id: col.uuidPk(),
      name: { type: DataTypes.STRING(128), allowNull: false },
      created_at: col.time(),
      updated_at: col.time(),
    }),
  },
  {
    name: '0002-create-administrators',
    ...newTable('administrators', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      username: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      display_name: { type: DataTypes.STRING(128), allowNull: false },
      role: { type: DataTypes.STRING(16), allowNull: false },
      password_hash: { type: DataTypes.STRING(255), allowNull: false },
      must_change_password: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      password_changed_at: col.time(true),
      last_login_at: col.time(true),
      created_at: col.time(),
      updated_at: col.time(),
    }),
  },
  {
    name: '0003-create-sessions',
    ...newTable('sessions', {
      // SHA-256 of the cookie value: a stolen table row cannot be replayed as a cookie.
      id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      administrator_id: col.ref('administrators', 'CASCADE'),
      created_at: col.time(),
      last_seen_at: col.time(),
      expires_at: col.time(),
      ip: { type: DataTypes.STRING(64), allowNull: true },
      user_agent: { type: DataTypes.STRING(255), allowNull: true },
    }),
  },
  {
    name: '0004-create-runtime-settings',
    ...newTable('runtime_settings', {
      key: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      value: { type: DataTypes.TEXT, allowNull: false },
      updated_at: col.time(),
    }),
  },
  {
    name: '0005-create-audit-log',
    ...newTable('audit_log', {
      id: col.autoPk(),
      at: col.time(),
      organization_id: { type: DataTypes.STRING(36), allowNull: true },
      actor_id: { type: DataTypes.STRING(36), allowNull: true },
      actor_name: { type: DataTypes.STRING(64), allowNull: true },
      action: { type: DataTypes.STRING(64), allowNull: false },
      outcome: { type: DataTypes.STRING(16), allowNull: false },
      target_type: { type: DataTypes.STRING(32), allowNull: true },
      target_id: { type: DataTypes.STRING(64), allowNull: true },
      ip: { type: DataTypes.STRING(64), allowNull: true },
      summary: { type: DataTypes.STRING(1024), allowNull: false, defaultValue: '' },
    }),
  },
  {
    name: '0006-create-login-failures',
    ...newTable('login_failures', {
      id: col.autoPk(),
      scope: { type: DataTypes.STRING(8), allowNull: false },
      key: { type: DataTypes.STRING(128), allowNull: false },
      at: col.time(),
    }),
  },
  {
    name: '0007-index-sessions-administrator',
    ...addForeignKeyIndex('sessions', 'sessions_administrator_id', 'administrator_id'),
  },
  {
    name: '0008-index-audit-log-time',
    ...addIndex('audit_log', 'audit_log_org_at', ['organization_id', 'at']),
  },
  {
    name: '0009-index-login-failures-key-time',
    ...addIndex('login_failures', 'login_failures_scope_key_at', ['scope', 'key', 'at']),
  },
  {
    name: '0010-index-administrators-organization',
    ...addForeignKeyIndex('administrators', 'administrators_organization_id', 'organization_id'),
  },
  {
    name: '0011-create-discovered-nodes',
    ...newTable('discovered_nodes', {
      id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      model: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      version: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      address: { type: DataTypes.STRING(64), allowNull: false },
      port: { type: DataTypes.INTEGER, allowNull: false },
      central: { type: DataTypes.STRING(2048), allowNull: false, defaultValue: '' },
      last_seen: col.time(),
      last_checkin: col.time(true),
      // SHA-256 of the terminal's current token; a new push replaces (revokes) the old one.
      token_hash: { type: DataTypes.STRING(64), allowNull: true },
      token_issued_at: col.time(true),
      created_at: col.time(),
    }),
  },
  {
    name: '0012-index-discovered-nodes-last-seen',
    ...addIndex('discovered_nodes', 'discovered_nodes_last_seen', ['last_seen']),
  },
  {
    name: '0013-index-discovered-nodes-token',
    ...addIndex('discovered_nodes', 'discovered_nodes_token_hash', ['token_hash'], true),
  },
  {
    name: '0014-add-discovered-nodes-organization',
    // The organization of the administrator who configured the terminal: enrollment through
    // its token lands in that organization.
    up: ({ qi }) =>
      qi.addColumn('discovered_nodes', 'organization_id', {
        type: DataTypes.STRING(36),
        allowNull: true,
      }),
    down: ({ qi }) => qi.removeColumn('discovered_nodes', 'organization_id'),
  },
  {
    name: '0015-create-spaces',
    ...newTable('spaces', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      parent_id: col.ref('spaces', 'RESTRICT', true),
      name: { type: DataTypes.STRING(128), allowNull: false },
      created_at: col.time(),
      updated_at: col.time(),
    }),
  },
  {
    name: '0016-index-spaces-organization-parent',
    ...addIndexOverForeignKey('spaces', 'spaces_org_parent', ['organization_id', 'parent_id']),
  },
  {
    name: '0017-create-people',
    ...newTable('people', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      name: { type: DataTypes.STRING(128), allowNull: false },
      // Lower-cased, accents removed: prefix search as an index range on either database.
      name_key: { type: DataTypes.STRING(128), allowNull: false },
      id_number: { type: DataTypes.STRING(64), allowNull: false },
      phone: { type: DataTypes.STRING(32), allowNull: true },
      notes: { type: DataTypes.STRING(1024), allowNull: true },
      valid_from: col.time(true),
      valid_until: col.time(true),
      enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      photo_sha256: { type: DataTypes.STRING(64), allowNull: true },
      // Raised on every change that devices must see; synchronization compares it.
      version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
      created_at: col.time(),
      updated_at: col.time(),
    }),
  },
  {
    name: '0018-unique-people-organization-id-number',
    ...addIndexOverForeignKey(
      'people',
      'people_org_id_number',
      ['organization_id', 'id_number'],
      true,
    ),
  },
  {
    name: '0019-index-people-organization-name',
    ...addIndexOverForeignKey('people', 'people_org_name_key', [
      'organization_id',
      'name_key',
      'id',
    ]),
  },
  {
    name: '0020-create-person-spaces',
    ...newTable('person_spaces', {
      person_id: { ...col.ref('people', 'CASCADE'), primaryKey: true },
      space_id: { ...col.ref('spaces', 'RESTRICT'), primaryKey: true },
    }),
  },
  {
    name: '0021-index-person-spaces-space',
    ...addIndexOverForeignKey('person_spaces', 'person_spaces_space_person', [
      'space_id',
      'person_id',
    ]),
  },
  {
    name: '0022-create-files',
    ...newTable('files', {
      // Content address: the SHA-256 of the stored bytes; the path is derived from it alone.
      sha256: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      media_type: { type: DataTypes.STRING(32), allowNull: false },
      bytes: { type: DataTypes.INTEGER, allowNull: false },
      width: { type: DataTypes.INTEGER, allowNull: true },
      height: { type: DataTypes.INTEGER, allowNull: true },
      created_at: col.time(),
    }),
  },
  {
    name: '0023-create-devices',
    ...newTable('devices', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      sn: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(128), allowNull: false },
      model: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      space_id: col.ref('spaces', 'RESTRICT', true),
      base_url: { type: DataTypes.STRING(512), allowNull: false },
      enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      capacity: { type: DataTypes.INTEGER, allowNull: true },
      max_photo_bytes: { type: DataTypes.INTEGER, allowNull: true },
      max_photo_pixels: { type: DataTypes.INTEGER, allowNull: true },
      // SHA-256 of the device key; the key itself is shown once, at registration or rotation.
      key_hash: { type: DataTypes.STRING(64), allowNull: false },
      key_rotated_at: col.time(),
      last_heartbeat_at: col.time(true),
      created_at: col.time(),
      updated_at: col.time(),
    }),
  },
  {
    name: '0024-index-devices-key',
    ...addIndex('devices', 'devices_key_hash', ['key_hash'], true),
  },
  {
    name: '0025-create-import-jobs',
    ...newTable('import_jobs', {
      id: col.uuidPk(),
      organization_id: col.ref('organizations', 'RESTRICT'),
      created_by: { type: DataTypes.STRING(36), allowNull: true },
      state: { type: DataTypes.STRING(16), allowNull: false },
      total: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      processed: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      succeeded: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      failed: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      // JSON array of {row, idNumber, error}: per-row errors, never photo data.
      errors: { type: DataTypes.TEXT, allowNull: false },
      created_at: col.time(),
      finished_at: col.time(true),
    }),
  },
  {
    name: '0026-index-people-photo',
    // "Is this file still used?" looks people up by photo before a file is removed.
    ...addIndex('people', 'people_photo_sha256', ['photo_sha256']),
  },
  {
    name: '0027-create-sync-tasks',
    // One row per (person, device): the newest wanted state wins (coalescing), and the row
    // keeps the device's last acknowledged result.
    ...newTable('sync_tasks', {
      id: col.uuidPk(),
      organization_id: { type: DataTypes.STRING(36), allowNull: false },
      // No foreign key: the task that removes an erased person from devices outlives the person.
      person_id: { type: DataTypes.STRING(36), allowNull: false },
      device_id: col.ref('devices', 'CASCADE'),
      action: { type: DataTypes.STRING(8), allowNull: false },
      lane: { type: DataTypes.STRING(8), allowNull: false },
      state: { type: DataTypes.STRING(16), allowNull: false },
      person_version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      photo_sha256: { type: DataTypes.STRING(64), allowNull: true },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      next_attempt_at: col.time(),
      claimed_by: { type: DataTypes.STRING(64), allowNull: true },
      claimed_until: col.time(true),
      result_version: { type: DataTypes.INTEGER, allowNull: true },
      result_photo_sha256: { type: DataTypes.STRING(64), allowNull: true },
      error_code: { type: DataTypes.STRING(32), allowNull: true },
      error_message: { type: DataTypes.STRING(512), allowNull: true },
      created_at: col.time(),
      updated_at: col.time(),
      finished_at: col.time(true),
    }),
  },
  {
    name: '0028-unique-sync-tasks-person-device',
    ...addIndex('sync_tasks', 'sync_tasks_person_device', ['person_id', 'device_id'], true),
  },
  {
    name: '0029-index-sync-tasks-due',
    ...addIndex('sync_tasks', 'sync_tasks_due', ['state', 'lane', 'next_attempt_at']),
  },
  {
    name: '0030-index-sync-tasks-device-state',
    ...addIndexOverForeignKey('sync_tasks', 'sync_tasks_device_state', ['device_id', 'state']),
  },
  {
    name: '0031-create-recognition-events',
    ...newTable('recognition_events', {
      id: col.uuidPk(),
      // The device's own id for the event (PROTOCOL §3): the same one twice is one record.
      event_id: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      organization_id: { type: DataTypes.STRING(36), allowNull: false },
      device_id: { type: DataTypes.STRING(36), allowNull: true },
      device_sn: { type: DataTypes.STRING(64), allowNull: false },
      device_name: { type: DataTypes.STRING(128), allowNull: false },
      person_id: { type: DataTypes.STRING(36), allowNull: true },
      person_name: { type: DataTypes.STRING(128), allowNull: true },
      space_id: { type: DataTypes.STRING(36), allowNull: true },
      space_name: { type: DataTypes.STRING(128), allowNull: true },
      score: { type: DataTypes.DOUBLE, allowNull: false },
      time: col.time(),
      received_at: col.time(),
      snapshot_sha256: { type: DataTypes.STRING(64), allowNull: true },
      delivery_state: { type: DataTypes.STRING(16), allowNull: false },
      delivery_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      next_delivery_at: col.time(true),
      delivered_at: col.time(true),
      delivery_error: { type: DataTypes.STRING(512), allowNull: true },
    }),
  },
  {
    name: '0032-index-recognition-events-time',
    ...addIndex('recognition_events', 'recognition_events_org_time', ['organization_id', 'time']),
  },
  {
    name: '0033-index-recognition-events-delivery',
    ...addIndex('recognition_events', 'recognition_events_delivery', [
      'delivery_state',
      'next_delivery_at',
    ]),
  },
  {
    name: '0034-index-recognition-events-person',
    ...addIndex('recognition_events', 'recognition_events_person_time', ['person_id', 'time']),
  },
  {
    name: '0035-index-recognition-events-snapshot',
    ...addIndex('recognition_events', 'recognition_events_snapshot', ['snapshot_sha256']),
  },
  {
    name: '0036-discovered-nodes-id-case-sensitive',
    // Terminal ids are case-sensitive (PROTOCOL §1); MySQL's default collation would merge
    // "ENR-a" and "ENR-A" into one node. SQLite compares them exactly already.
    up: async ({ qi, dialect }) => {
      if (dialect !== 'mysql') return;
      await qi.sequelize.query(
        'ALTER TABLE discovered_nodes MODIFY id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL',
      );
    },
    down: async ({ qi, dialect }) => {
      if (dialect !== 'mysql') return;
      await qi.sequelize.query(
        'ALTER TABLE discovered_nodes MODIFY id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL',
      );
    },
  },
];
