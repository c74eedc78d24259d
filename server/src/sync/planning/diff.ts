import type { DeviceRow } from '../../platform/db/business-models.js';
import type { SpaceTree } from '../../spaces/tree.js';

/** What a plan decides for one device: the shapes the full plan, the people plan and apply share. */

/**
 * The spaces whose people belong on a device: its own and every ancestor (access to a space
 * includes the spaces below it). Empty when the device is disabled or has no space: then it
 * should hold nobody.
 */
export function deviceSpaces(
  device: Pick<DeviceRow, 'enabled' | 'spaceId'>,
  tree: SpaceTree,
): string[] {
  if (!device.enabled || !device.spaceId) return [];
  return tree.spaceAndAncestors(device.spaceId);
}

export interface PutNeed {
  personId: string;
  version: number;
  photoSha256: string | null;
  taskId: string | null;
}

export interface DeleteNeed {
  taskId: string;
  /** The task's person version when the diff read it. */
  version: number;
}

export interface DeviceDiff {
  puts: PutNeed[];
  /** Tasks whose device holds (or is about to hold) a person it should not. */
  deletes: DeleteNeed[];
  /**
   * People of the device's spaces without any task on it yet (a full plan): written by one
   * INSERT … SELECT in the database instead of as rows through the service — a new device of
   * 100,000 people is 100,000 rows.
   */
  missing?: { count: number; spaces: readonly string[] };
}

/** Everything a diff queues. */
export const diffSize = (diff: DeviceDiff): number =>
  diff.puts.length + diff.deletes.length + (diff.missing?.count ?? 0);
