import type { Transaction } from 'sequelize';
import type { AppContext } from '../platform/context.js';

type Deps = Pick<AppContext, 'models'>;

/**
 * One organization's space tree, loaded in a single query. Spaces per organization number in
 * the hundreds or thousands, so walking them in memory beats a recursive query per question and
 * works the same on both databases.
 */
export class SpaceTree {
  private readonly parent = new Map<string, string | null>();
  private readonly children = new Map<string, string[]>();

  constructor(rows: readonly { id: string; parentId: string | null }[]) {
    for (const row of rows) {
      this.parent.set(row.id, row.parentId);
      if (row.parentId) {
        const siblings = this.children.get(row.parentId);
        if (siblings) siblings.push(row.id);
        else this.children.set(row.parentId, [row.id]);
      }
    }
  }

  has(id: string): boolean {
    return this.parent.has(id);
  }

  /** [id, parent, grandparent, …, root]; [] when the space is not in this tree. */
  spaceAndAncestors(id: string): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    let current: string | null | undefined = this.has(id) ? id : undefined;
    // `seen` guards against a cycle someone wrote into the table by hand.
    while (current && !seen.has(current)) {
      seen.add(current);
      out.push(current);
      current = this.parent.get(current);
    }
    return out;
  }

  /** Every space below `id`, breadth first, without `id` itself. */
  descendantsOf(id: string): string[] {
    const out: string[] = [];
    const seen = new Set<string>([id]);
    const queue = [...(this.children.get(id) ?? [])];
    for (let i = 0; i < queue.length; i++) {
      const next = queue[i]!;
      if (seen.has(next)) continue;
      seen.add(next);
      out.push(next);
      queue.push(...(this.children.get(next) ?? []));
    }
    return out;
  }

  /** True when `candidate` is `id` or lies below it (moving `id` under it would close a cycle). */
  isSelfOrDescendant(id: string, candidate: string): boolean {
    return this.spaceAndAncestors(candidate).includes(id);
  }
}

/** The space tree of one organization. */
export async function loadSpaceTree(
  deps: Deps,
  organizationId: string,
  transaction?: Transaction,
): Promise<SpaceTree> {
  const rows = await deps.models.Space.findAll({
    attributes: ['id', 'parentId'],
    where: { organizationId },
    raw: true,
    transaction,
  });
  return new SpaceTree(rows);
}

async function treeOf(deps: Deps, spaceId: string, transaction?: Transaction) {
  const space = await deps.models.Space.findByPk(spaceId, {
    attributes: ['organizationId'],
    transaction,
  });
  return space ? loadSpaceTree(deps, space.organizationId, transaction) : undefined;
}

/**
 * The space and every space above it, nearest first; [] if the space does not exist.
 * Synchronization: a device in space D serves everyone with access to any of these (access to
 * a space includes its descendants).
 */
export async function spaceAndAncestors(
  deps: Deps,
  spaceId: string,
  transaction?: Transaction,
): Promise<string[]> {
  return (await treeOf(deps, spaceId, transaction))?.spaceAndAncestors(spaceId) ?? [];
}

/** Every space below the space (not the space itself); [] if it does not exist. */
export async function descendantsOf(
  deps: Deps,
  spaceId: string,
  transaction?: Transaction,
): Promise<string[]> {
  return (await treeOf(deps, spaceId, transaction))?.descendantsOf(spaceId) ?? [];
}

/** The space followed by every space below it; [] if it does not exist. */
export async function spaceAndDescendants(
  deps: Deps,
  spaceId: string,
  transaction?: Transaction,
): Promise<string[]> {
  const tree = await treeOf(deps, spaceId, transaction);
  return tree ? [spaceId, ...tree.descendantsOf(spaceId)] : [];
}
