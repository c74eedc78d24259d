import { Text } from '@mantine/core';
import { useT } from '../i18n';
import { keys, useApiQuery } from '../query';
import { getChangeFace } from './api';

/** Under 0.55 the face check warns that two faces look alike (photos/faces/rules.ts). */
const SAME = 0.55;

/** On a held re-enrollment: how close the new face is to the old one, for the approver. */
export function FaceDistance({ changeId }: { changeId: string }) {
  const t = useT();
  const change = useApiQuery([...keys.enrollmentChange(changeId), 'face'], (signal) =>
    getChangeFace(changeId, signal),
  );
  const distance = change.data?.faceDistance;
  if (distance === undefined || distance === null) return null;
  return (
    <Text data-testid="face-distance">
      {t(distance < SAME ? 'enrollment.faceSame' : 'enrollment.faceDifferent', {
        distance: distance.toFixed(2),
      })}
    </Text>
  );
}
