import { addIndex, col, DataTypes, type Migration, newTable } from '../migration.js';

/**
 * 0110–0113: per-device photo variants (issue 26). A device's profile gains a minimum side
 * and a baseline 4:2:0 requirement (with max_photo_bytes and max_photo_pixels, the longest
 * side); photo_variants remembers, per (photo, profile), what the profile gets: the original,
 * a variant (a file of its own, in `files`), or why the photo cannot fit.
 */
export const photoVariantsMigrations: Migration[] = [
  {
    name: '0110-add-devices-min-photo-side',
    up: ({ qi }) =>
      qi.addColumn('devices', 'min_photo_side', { type: DataTypes.INTEGER, allowNull: true }),
    down: ({ qi }) => qi.removeColumn('devices', 'min_photo_side'),
  },
  {
    name: '0111-add-devices-photo-baseline-420',
    up: ({ qi }) =>
      qi.addColumn('devices', 'photo_baseline_420', {
        type: DataTypes.BOOLEAN,
        allowNull: false,
        defaultValue: false,
      }),
    down: ({ qi }) => qi.removeColumn('devices', 'photo_baseline_420'),
  },
  {
    name: '0112-create-photo-variants',
    // Erased with the source file (a replaced photo's variants go with it); the variant's own
    // file is then unreferenced and the hourly file cleanup removes it.
    ...newTable('photo_variants', {
      source_sha256: {
        type: DataTypes.STRING(64),
        allowNull: false,
        primaryKey: true,
        references: { model: 'files', key: 'sha256' },
        onDelete: 'CASCADE',
        onUpdate: 'CASCADE',
      },
      // The profile's canonical text (variants/profile.ts), e.g. "b61440.x480.n0.j420".
      profile: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
      // NULL with problem NULL: the original fits the profile as it is.
      variant_sha256: { type: DataTypes.STRING(64), allowNull: true },
      problem: { type: DataTypes.STRING(500), allowNull: true },
      created_at: col.time(),
    }),
  },
  {
    name: '0113-index-photo-variants-variant',
    // The file cleanup looks a file's references up by value.
    ...addIndex('photo_variants', 'photo_variants_variant', ['variant_sha256']),
  },
];
