import { Alert, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { FaceCheckOut } from '@svc/shared';
import { t, useT } from '../i18n';
import { translateMessage } from '../i18n/errors';
import { Tx } from '../i18n/Tx';
import { Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { getPersonFace } from './api';

function measures(check: FaceCheckOut): string {
  const parts = [
    check.box && t('face.height', { px: check.box.height }),
    check.score !== null && t('face.score', { score: check.score.toFixed(2) }),
    check.sharpness !== null && t('face.sharpness', { sharpness: Math.round(check.sharpness) }),
    check.frontal !== null && t('face.frontal', { frontal: check.frontal.toFixed(2) }),
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The check's problems in the site's language; a check stored before codes keeps its English. */
function problemTexts(check: FaceCheckOut): string[] {
  const { reasons, problems } = check;
  if (reasons === null || reasons.length !== problems.length) return problems;
  return reasons.map((r, i) => translateMessage(r.code, r.params, problems[i]));
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
  const t = useT();
  const face = useApiQuery([...keys.person(personId), 'face', photoSha256], (signal) =>
    getPersonFace(personId, signal),
  );
  if (photoSha256 === null || face.data === null) return null;
  const { check, lookAlikes } = face.data;
  return (
    <Card withBorder component="section" aria-label={t('face.title')}>
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('face.title')}
        </Title>
        {check === null ? (
          <Text c="dimmed" data-testid="face-unchecked">
            {t('face.unchecked')}
          </Text>
        ) : (
          <>
            <Group gap="sm">
              {check.problems.length === 0 ? (
                <Badge color="green" variant="light" data-testid="face-passed">
                  {t('face.passed')}
                </Badge>
              ) : (
                <Badge color="orange" variant="light" data-testid="face-accepted">
                  {t('face.acceptedBy', { name: check.acceptedBy ?? t('face.anAdministrator') })}
                </Badge>
              )}
              <Text size="sm" data-testid="face-measures">
                {measures(check)}
              </Text>
            </Group>
            {check.problems.length > 0 && (
              <Text size="sm" data-testid="face-problems">
                {t('face.despite', {
                  problems: problemTexts(check).join(t('face.problemSeparator')),
                })}
              </Text>
            )}
          </>
        )}
        {lookAlikes.map((other) => (
          <Alert key={other.personId} color="yellow" data-testid="face-look-alike">
            <Tx
              k="face.looksLike"
              values={{
                name: other.name,
                idNumber: other.idNumber,
                distance: other.distance.toFixed(2),
              }}
              components={{ a: <Link to="/people/$id" params={{ id: other.personId }} /> }}
            />
          </Alert>
        ))}
      </Stack>
    </Card>
  );
}
