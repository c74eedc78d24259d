import { ErrorCode, type TerminalSpaces } from '@svc/shared';
import { Op, type Transaction } from 'sequelize';
import type { AppContext } from '../platform/context.js';
import type { DiscoveredNodeRow } from '../platform/db/models.js';
import { HttpError, httpErrors, invalidFields } from '../platform/http/errors.js';
import type { Actor } from '../people/service.js';

type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit'>;

/**
 * The spaces a terminal may grant: those assigned to it that belong to its organization (an
 * assignment made before the terminal was configured into another organization grants nothing).
 */
export async function grantableSpaces(
  deps: Pick<AppContext, 'models'>,
  terminalId: string,
  organizationId: string | null,
  transaction?: Transaction,
): Promise<string[]> {
  if (!organizationId) return [];
  const assigned = await deps.models.TerminalSpace.findAll({
    where: { terminalId },
    attributes: ['spaceId'],
    raw: true,
    transaction,
  });
  if (assigned.length === 0) return [];
  const spaces = await deps.models.Space.findAll({
    where: { organizationId, id: { [Op.in]: assigned.map((a) => a.spaceId) } },
    attributes: ['id'],
    raw: true,
    transaction,
  });
  return spaces.map((s) => s.id).sort();
}

/** 403 naming every requested space the terminal was not given by an administrator. */
export async function assertMayGrant(
  deps: Pick<AppContext, 'models'>,
  terminal: { id: string; organizationId: string },
  spaceIds: readonly string[],
): Promise<void> {
  if (spaceIds.length === 0) return;
  const allowed = new Set(await grantableSpaces(deps, terminal.id, terminal.organizationId));
  const refused = [...new Set(spaceIds)].filter((id) => !allowed.has(id)).sort();
  if (refused.length === 0) return;
  throw new HttpError(
    403,
    ErrorCode.forbidden,
    `Terminal ${terminal.id} may not grant access to ${refused.length === 1 ? 'space' : 'spaces'} ${refused.join(', ')}: an administrator assigns the spaces an enrollment terminal may grant (PUT /api/terminals/${terminal.id}/spaces).`,
    { spaceIds: `not assigned to this terminal: ${refused.join(', ')}` },
  );
}

/**
 * The node an administrator may manage: one of their organization, or one not configured yet
 * (it belongs to nobody). Anything else is 404, like a node that does not exist.
 */
export async function manageableTerminal(
  deps: Pick<AppContext, 'models'>,
  admin: { role: string; organizationId: string },
  id: string,
): Promise<DiscoveredNodeRow> {
  const node = await deps.models.DiscoveredNode.findByPk(id);
  const visible =
    node &&
    (admin.role === 'superadmin' ||
      node.organizationId === null ||
      node.organizationId === admin.organizationId);
  if (!node || !visible) throw httpErrors.notFound('Terminal not found.');
  if (node.kind !== 'enrollment') {
    throw invalidFields(
      { id: { code: 'not_enrollment_terminal' } },
      `Terminal ${node.id} is a ${node.kind} terminal; only enrollment terminals grant spaces.`,
    );
  }
  return node;
}

export async function terminalSpaces(
  deps: Pick<AppContext, 'models'>,
  node: DiscoveredNodeRow,
  organizationId: string,
): Promise<TerminalSpaces> {
  return {
    terminalId: node.id,
    spaceIds: await grantableSpaces(deps, node.id, node.organizationId ?? organizationId),
  };
}

/** Replaces the terminal's spaces (each one of `organizationId`'s, else 400); audited. */
export async function setTerminalSpaces(
  deps: Deps,
  node: DiscoveredNodeRow,
  organizationId: string,
  spaceIds: readonly string[],
  actor: Actor,
): Promise<TerminalSpaces> {
  const ids = [...new Set(spaceIds)].sort();
  return deps.db.sequelize.transaction(async (transaction) => {
    const found = await deps.models.Space.count({
      where: { organizationId, id: { [Op.in]: ids } },
      transaction,
    });
    if (found !== ids.length) {
      throw invalidFields({ spaceIds: { code: 'no_such_space' } });
    }
    const before = await grantableSpaces(deps, node.id, organizationId, transaction);
    await deps.models.TerminalSpace.destroy({ where: { terminalId: node.id }, transaction });
    const now = deps.clock.now();
    await deps.models.TerminalSpace.bulkCreate(
      ids.map((spaceId) => ({ terminalId: node.id, spaceId, createdAt: now })),
      { transaction },
    );
    await deps.audit.record(
      {
        ...actor,
        organizationId,
        action: 'terminal.spaces_change',
        target: { type: 'terminal', id: node.id },
        summary: `enrollment terminal ${node.id} may grant spaces: ${list(before)} → ${list(ids)}`,
        message: {
          code: 'terminal_spaces_changed',
          params: { id: node.id, before: before.length, after: ids.length },
        },
      },
      transaction,
    );
    return { terminalId: node.id, spaceIds: ids };
  });
}

const list = (ids: readonly string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
