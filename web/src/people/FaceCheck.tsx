import { Alert, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { personFaceOut, type FaceCheckOut, type PersonFaceOut } from '@svc/shared';
import { request } from '../api';
import { Link } from '../nav';
import { keys, useApiQuery } from '../query';

function getPersonFace(id: string, signal: AbortSignal): Promise<PersonFaceOut> {
  return request('GET', `/api/people/${encodeURIComponent(id)}/face`, {
    schema: personFaceOut,
    signal,
  });
}

function measures(check: FaceCheckOut): string {
  const parts = [
    check.box && `face ${check.box.height} px high`,
    check.score !== null && `score ${check.score.toFixed(2)}`,
    check.sharpness !== null && `sharpness ${Math.round(check.sharpness)}`,
    check.frontal !== null && `frontal ${check.frontal.toFixed(2)}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

/**
 * On a person's page: the face check of their photo and the people whose face looks like it
 * (issue 26). Keyed under the person, so a new photo (which reloads the person) reloads it.
 */
export function FaceCheck({
  personId,
  photoSha256,
}: {
  personId: string;
  photoSha256: string | null;
}) {
  const face = useApiQuery([...keys.person(personId), 'face', photoSha256], (signal) =>
    getPersonFace(personId, signal),
  );
  if (photoSha256 === null || face.data === null) return null;
  const { check, lookAlikes } = face.data;
  return (
    <Card withBorder component="section" aria-label="Face check">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Face check
        </Title>
        {check === null ? (
          <Text c="dimmed" data-testid="face-unchecked">
            Not checked: the face check was off when this photo was stored.
          </Text>
        ) : (
          <>
            <Group gap="sm">
              {check.problems.length === 0 ? (
                <Badge color="green" variant="light" data-testid="face-passed">
                  Passed
                </Badge>
              ) : (
                <Badge color="orange" variant="light" data-testid="face-accepted">
                  Accepted by {check.acceptedBy ?? 'an administrator'}
                </Badge>
              )}
              <Text size="sm" data-testid="face-measures">
                {measures(check)}
              </Text>
            </Group>
            {check.problems.length > 0 && (
              <Text size="sm" data-testid="face-problems">
                Despite: {check.problems.join('; ')}.
              </Text>
            )}
          </>
        )}
        {lookAlikes.map((other) => (
          <Alert key={other.personId} color="yellow" data-testid="face-look-alike">
            Looks like{' '}
            <Link to="/people/$id" params={{ id: other.personId }}>
              {other.name}, {other.idNumber}
            </Link>{' '}
            (distance {other.distance.toFixed(2)}). Check that this is the right person.
          </Alert>
        ))}
      </Stack>
    </Card>
  );
}
