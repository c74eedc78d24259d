import { addForeignKeyIndex, col, DataTypes, type Migration, newTable } from '../migration.js';

/** 0100–0109: the face check at every entry and the look-alike warning (issue 26). */
export const faceMigrations: Migration[] = [
  {
    name: '0100-add-devices-min-face-px',
    // The smallest face height (px) the device's model enrolls; null: the server default.
    up: ({ qi }) =>
      qi.addColumn('devices', 'min_face_px', { type: DataTypes.INTEGER, allowNull: true }),
    down: ({ qi }) =>
      qi.sequelize.query('ALTER TABLE devices DROP COLUMN min_face_px').then(() => undefined),
  },
  {
    name: '0101-create-person-faces',
    // The face check of a person's photo (current, or held in a re-enrollment change) and its
    // descriptor: biometric data, kept only to compare faces, erased with the person.
    ...newTable('person_faces', {
      person_id: { ...col.ref('people', 'CASCADE'), primaryKey: true },
      photo_sha256: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
      organization_id: col.ref('organizations', 'CASCADE'),
      faces: { type: DataTypes.INTEGER, allowNull: false },
      box_x: { type: DataTypes.INTEGER, allowNull: true },
      box_y: { type: DataTypes.INTEGER, allowNull: true },
      box_w: { type: DataTypes.INTEGER, allowNull: true },
      box_h: { type: DataTypes.INTEGER, allowNull: true },
      score: { type: DataTypes.DOUBLE, allowNull: true },
      sharpness: { type: DataTypes.DOUBLE, allowNull: true },
      frontal: { type: DataTypes.DOUBLE, allowNull: true },
      problems: { type: DataTypes.TEXT, allowNull: false },
      descriptor: { type: DataTypes.BLOB, allowNull: true },
      accepted_by: { type: DataTypes.STRING(64), allowNull: true },
      checked_at: col.time(),
    }),
  },
  {
    name: '0102-index-person-faces-organization',
    // The look-alike comparison reads an organization's descriptors.
    ...addForeignKeyIndex('person_faces', 'person_faces_organization', 'organization_id'),
  },
];
