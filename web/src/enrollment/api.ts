import {
  enrollmentChangeFaceOut,
  enrollmentChangeList,
  enrollmentChangeOut,
  type EnrollmentChangeOut,
  type EnrollmentChangeState,
} from '@svc/shared';
import { request, withQuery } from '../api';
import { t } from '../i18n';

export interface ChangeSearch {
  state?: EnrollmentChangeState;
  personId?: string;
  page: number;
  pageSize: number;
}

/** Re-enrollments held for review, oldest first. */
export function listChanges(search: ChangeSearch, signal?: AbortSignal) {
  return request('GET', withQuery('/api/enrollment/changes', { ...search }), {
    schema: enrollmentChangeList,
    signal,
  });
}

export function getChange(id: string, signal?: AbortSignal): Promise<EnrollmentChangeOut> {
  return request('GET', `/api/enrollment/changes/${encodeURIComponent(id)}`, {
    schema: enrollmentChangeOut,
    signal,
  });
}

/** The change with how far its new face is from the old one (`faceDistance`). */
export function getChangeFace(id: string, signal?: AbortSignal) {
  return request('GET', `/api/enrollment/changes/${encodeURIComponent(id)}`, {
    schema: enrollmentChangeFaceOut,
    signal,
  });
}

export function decideChange(id: string, decision: 'approve' | 'reject') {
  return request('POST', `/api/enrollment/changes/${encodeURIComponent(id)}/${decision}`, {
    schema: enrollmentChangeOut,
  });
}

/** The photo the person had (`old`) or the one the terminal sent (`new`). */
export function changePhotoUrl(id: string, which: 'old' | 'new'): string {
  return withQuery(`/api/enrollment/changes/${encodeURIComponent(id)}/photo`, { which });
}

/** "name and photo", "photo", "name": what approving the change would change. */
export function changedText(change: EnrollmentChangeOut): string {
  const name = change.newName !== change.oldName;
  const photo = change.newPhotoSha256 !== change.oldPhotoSha256;
  return t(
    name && photo
      ? 'enrollment.parts.both'
      : name
        ? 'enrollment.parts.name'
        : photo
          ? 'enrollment.parts.photo'
          : 'enrollment.parts.nothing',
  );
}

/** `text`: the catalog key of the state's name. */
export const stateLabel: Record<EnrollmentChangeState, { text: string; color: string }> = {
  pending: { text: 'enrollment.state.pending', color: 'yellow' },
  approved: { text: 'enrollment.state.approved', color: 'green' },
  rejected: { text: 'enrollment.state.rejected', color: 'red' },
  superseded: { text: 'enrollment.state.superseded', color: 'gray' },
};
