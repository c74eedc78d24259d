import type { SpaceOut } from '@svc/shared';
import { compareNames } from '../i18n/format';

export interface SpaceNode {
  space: SpaceOut;
  depth: number;
  /** Names from the root down to this space, joined for a label: "HQ › Floor 1 › Door A". */
  path: string;
}

/** The spaces in tree order (parents before children, siblings by name in the locale's order). */
export function spaceTree(spaces: readonly SpaceOut[]): SpaceNode[] {
  const ids = new Set(spaces.map((s) => s.id));
  const children = new Map<string | null, SpaceOut[]>();
  for (const space of spaces) {
    // A parent outside the list (another page of a huge tree) puts the space at the top.
    const parent = space.parentId !== null && ids.has(space.parentId) ? space.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), space]);
  }
  const out: SpaceNode[] = [];
  const walk = (parent: string | null, depth: number, prefix: string) => {
    const below = [...(children.get(parent) ?? [])].sort((a, b) => compareNames(a.name, b.name));
    for (const space of below) {
      const path = prefix === '' ? space.name : `${prefix} › ${space.name}`;
      out.push({ space, depth, path });
      walk(space.id, depth + 1, path);
    }
  };
  walk(null, 0, '');
  return out;
}

/** `id` and every space below it (a space cannot move under itself or its descendants). */
export function subtreeIds(spaces: readonly SpaceOut[], id: string): Set<string> {
  const out = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const space of spaces) {
      if (space.parentId !== null && out.has(space.parentId) && !out.has(space.id)) {
        out.add(space.id);
        grew = true;
      }
    }
  }
  return out;
}

/** Select options labelled with the whole path, in tree order. */
export function spaceOptions(
  spaces: readonly SpaceOut[],
  exclude: ReadonlySet<string> = new Set(),
): { value: string; label: string }[] {
  return spaceTree(spaces)
    .filter((node) => !exclude.has(node.space.id))
    .map((node) => ({ value: node.space.id, label: node.path }));
}
