import { SEEDED_ADMIN_DISPLAY_NAME, SEEDED_ORGANIZATION_NAME } from '../constants.js';
import { messageCatalog } from '../messages.js';
import type { SharedTexts } from './types.js';

/** English: the field messages are the server's own catalog, word for word. */
export const en: SharedTexts = {
  messages: messageCatalog,
  errors: {
    invalid_input: 'Some fields are not valid; see the message beside each.',
    invalid_json: 'The request body is not valid JSON.',
    unauthorized: 'Your session has ended. Sign in again.',
    invalid_credentials: 'Wrong username or password.',
    session_expired: 'Your session has ended. Sign in again.',
    forbidden: 'You are not allowed to do this.',
    untrusted_network: 'This address may not be used from your network.',
    password_change_required: 'Change your password before you go on.',
    csrf: 'The page was open too long. Reload it and try again.',
    not_found: 'Not found: it may have been deleted meanwhile.',
    conflict: 'This conflicts with the current state; reload and try again.',
    edit_conflict: 'Someone else changed this {record} meanwhile. Reload it to see their change.',
    duplicate_space_name: 'A space named “{name}” is already here; choose another name.',
    payload_too_large: 'What you sent is too large.',
    unsupported_media_type: 'This kind of file is not accepted.',
    invalid_image: 'This is not a JPEG or PNG photo the service can read.',
    face_check_failed: 'The photo was refused by the face check.',
    rate_limited:
      '{retryAfterS, select, 0 {Too many attempts. Wait a moment and try again.} other {Too many attempts. Try again in {retryAfterS, plural, one {# second} other {# seconds}}.}}',
    service_busy: 'The server is busy; send it again in a few seconds.',
    terminal_other_organization:
      'This terminal belongs to another organization; only it or a super administrator may configure it.',
    two_factor_required: 'Enter the code from your authenticator app.',
    two_factor_invalid: 'The code is wrong or expired. Enter the current code.',
    two_factor_enrolment_required: 'Set up two-factor sign-in before you go on.',
    weak_password: 'The new password is too weak.',
    database_unavailable:
      'The service is temporarily unavailable (its database is not reachable). Try again shortly.',
    internal_error:
      'Something went wrong on the server. Try again, and tell the operator if it keeps happening.',
    network: 'Cannot reach the service. Check the network connection and try again.',
    bad_response: 'The service answered something unexpected. Reload the page and try again.',
    unknown: 'Something went wrong. Try again, and reload the page if it keeps happening.',
  },
  reasons: {
    username_taken: 'The username “{username}” is already taken.',
    organization_name_taken: 'An organization named “{name}” already exists.',
    serial_number_taken: 'A device with serial number “{serialNumber}” is already registered.',
    id_number_taken: 'Another person in this organization already has this ID number.',
    space_in_use:
      'This space cannot be deleted: {people, plural, =0 {} one {# person has access to it; } other {# people have access to it; }}{devices, plural, =0 {} one {# device has access to it; } other {# devices have access to it; }}{children, plural, =0 {} one {it has # child space; } other {it has # child spaces; }}remove or move them first.',
    space_in_use_now:
      'This space cannot be deleted: something started depending on it. Reload and try again.',
    last_superadmin:
      '{username} is the last enabled super administrator: make another super administrator first.',
    two_factor_already_on:
      'Two-factor sign-in is on already; a super administrator resets it when the app is lost.',
    two_factor_not_started: 'Start the two-factor set-up first, then enter the code.',
    two_factor_own_first: 'Set up your own two-factor sign-in first, then require it of everyone.',
    change_already_decided:
      'This change was already {state, select, approved {approved} rejected {rejected} other {decided}}; only a pending change can be decided.',
    terminal_two_addresses:
      'Terminal {id} is heard from two addresses: {accepted} (accepted) and {claimant}. Choose the real terminal’s address (nothing was sent).{others, plural, =0 {} one { # more terminal was refused too.} other { # more terminals were refused too.}}',
    terminal_not_heard_from:
      'Terminal {id} was not heard from {choice}: it is at {at} (nothing was sent).{others, plural, =0 {} one { # more terminal was refused too.} other { # more terminals were refused too.}}',
    terminal_two_ports:
      'Terminal {id} is heard from two ports of {choice}: name the port too ({at}; nothing was sent).{others, plural, =0 {} one { # more terminal was refused too.} other { # more terminals were refused too.}}',
    terminal_still_heard:
      'Terminal {id} is still heard on the network; it can be removed once it has been silent for {seconds} s.',
    terminal_not_claimed_from:
      'Terminal {id} is not claimed from {address}: it is at {at}. Reload the list and choose again.',
    sync_task_running: 'The task is being sent right now; look again in a moment.',
    space_own_parent: 'A space cannot be its own parent.',
    space_cycle:
      'A space cannot be moved under one of its own child spaces: that would make a cycle.',
    event_id_used: 'This event id was already used by another device.',
    device_has_records:
      'Device {sn} still has records that refer to it (synchronization or recognition history); disable it instead.',
    panel_route_superadmin_only:
      'Only a super administrator can see or change the panel route: it is shared by every organization.',
  },
  seeded: { organization: SEEDED_ORGANIZATION_NAME, administrator: SEEDED_ADMIN_DISPLAY_NAME },
};
