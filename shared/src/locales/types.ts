import type { MessageCode } from '../messages.js';
import type { ErrorCode } from '../errors.js';

/** Codes only a client produces: the service could not be reached, or answered nonsense. */
export type ClientErrorCode = 'network' | 'bad_response' | 'unknown';

/**
 * The texts of the shared codes in one language, ICU MessageFormat (`{name}`, plural, select):
 * field messages by {@link MessageCode}, whole answers by the server's `error.code` (and, for a
 * generic code, by its `params.reason`), so the site and the console say the same thing.
 */
export interface SharedTexts {
  messages: Record<MessageCode, string>;
  errors: Record<ErrorCode | ClientErrorCode, string>;
  /** `conflict` and `forbidden` answers whose `params.reason` names the rule (with its values). */
  reasons: Record<ConflictReason | ForbiddenReason, string>;
  /** The seed's own names (SEEDED_ORGANIZATION_NAME, SEEDED_ADMIN_DISPLAY_NAME) in this language. */
  seeded: { organization: string; administrator: string };
}

/** Why a 409 `conflict` was answered, as `params.reason`; the values sit beside it. */
export type ConflictReason =
  | 'username_taken'
  | 'organization_name_taken'
  | 'serial_number_taken'
  | 'id_number_taken'
  /** A space still used: `people`, `devices` (with access to it) and `children` (spaces). */
  | 'space_in_use'
  /** A space something started depending on between the count and the delete. */
  | 'space_in_use_now'
  /** Demoting or disabling `username` would leave no enabled superadmin. */
  | 'last_superadmin'
  /** Two-factor set-up: on already; enable before set-up; requiring it before having it. */
  | 'two_factor_already_on'
  | 'two_factor_not_started'
  | 'two_factor_own_first'
  /** An enrollment change decided before (`state`: approved or rejected). */
  | 'change_already_decided'
  /** Configure refusals (`id`, the addresses; `others`: more terminals refused alike). */
  | 'terminal_two_addresses'
  | 'terminal_not_heard_from'
  | 'terminal_two_ports'
  /** Removing terminal `id` still heard within `seconds`; a move from an unclaimed `address`. */
  | 'terminal_still_heard'
  | 'terminal_not_claimed_from'
  /** A sync task retried while it is being pushed. */
  | 'sync_task_running'
  | 'space_own_parent'
  | 'space_cycle'
  /** A recognition's eventId already used by another device. */
  | 'event_id_used'
  /** Device `sn` still referred to by sync or recognition history. */
  | 'device_has_records';

/** Why a 403 `forbidden` was answered, as `params.reason`, where the role alone says too little. */
export type ForbiddenReason = 'panel_route_superadmin_only';
