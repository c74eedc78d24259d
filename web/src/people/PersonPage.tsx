import { Alert, Card, Group, Image, Loader, SimpleGrid, Text, Title } from '@mantine/core';
import { wrapAnywhere } from '../components/badgeStyles';
import type { PersonOut } from '@svc/shared';
import type { ReactNode } from 'react';
import { listAllSpaces } from '../spaces/api';
import { getPerson, photoUrl } from './api';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
import { useT } from '../i18n';
import { ButtonLink, Link } from '../nav';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { PendingChangeNotice } from '../enrollment/PendingChangeNotice';
import { DeletePerson } from './DeletePerson';
import { PhotoFitNotice } from './PhotoFitNotice';
import { formatTime, formatValidity, spaceNames } from './format';
import { FaceCheck } from './FaceCheck';
import { PersonSync } from './PersonSync';

const route = getRouteApi('/people/$id');

export function PersonPage() {
  const { id } = route.useParams();
  const t = useT();
  const canEdit = useCanEdit();
  const person = useApiQuery(keys.person(id), (signal) => getPerson(id, signal));
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  useDocumentTitle(person.data?.name ?? t('events.person'));

  return (
    <>
      <Link to="/people">{t('people.back')}</Link>
      {person.error !== null && (
        <Alert color="red" title={t('people.notLoadedOne')} data-testid="person-error">
          {person.error}
        </Alert>
      )}
      {person.data === null && person.loading && (
        <Loader role="status" aria-label={t('people.loadingOne')} />
      )}
      {person.data !== null && (
        <>
          <Group justify="space-between">
            <Title order={1} style={wrapAnywhere}>
              {person.data.name}
            </Title>
            {canEdit && (
              <Group gap="xs">
                <ButtonLink to="/people/$id/edit" params={{ id }}>
                  {t('people.edit')}
                </ButtonLink>
                <DeletePerson id={id} name={person.data.name} />
              </Group>
            )}
          </Group>
          <PendingChangeNotice personId={id} />
          <PhotoFitNotice personId={id} photo={person.data.photoSha256} />
          <PersonDetails
            person={person.data}
            spaces={spaceNames(person.data.spaceIds, spaces.data)}
          />
          <FaceCheck personId={id} photoSha256={person.data.photoSha256} />
          <PersonSync personId={id} />
        </>
      )}
    </>
  );
}

function Field({
  label,
  testId,
  children,
}: {
  label: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text data-testid={testId} style={wrapAnywhere}>
        {children}
      </Text>
    </div>
  );
}

function PersonDetails({ person, spaces }: { person: PersonOut; spaces: string }) {
  const t = useT();
  const photo = photoUrl(person);
  return (
    <Card withBorder component="section" aria-label={t('event.details')}>
      <Group align="start" gap="xl">
        {photo === null ? (
          <Text c="dimmed" w={160} data-testid="person-no-photo">
            {t('people.noPhoto')}
          </Text>
        ) : (
          <Image src={photo} alt={t('people.photoOf', { name: person.name })} w={160} radius="sm" />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" style={{ flex: 1, minWidth: 240 }}>
          <Field label={t('people.name')} testId="person-name">
            {person.name}
          </Field>
          <Field label={t('people.idNumber')} testId="person-id-number">
            {person.idNumber}
          </Field>
          <Field label={t('people.spaces')} testId="person-spaces">
            {spaces}
          </Field>
          <Field label={t('people.valid')} testId="person-validity">
            {formatValidity(person)}
          </Field>
          <Field label={t('people.status')} testId="person-enabled">
            {person.enabled ? t('people.enabled') : t('people.disabled')}
          </Field>
          <Field label={t('people.phone')} testId="person-phone">
            {person.phone ?? '—'}
          </Field>
          <Field label={t('people.notes')} testId="person-notes">
            <span style={{ whiteSpace: 'pre-wrap' }}>{person.notes ?? '—'}</span>
          </Field>
          <Field label={t('people.lastChanged')} testId="person-updated">
            {formatTime(person.updatedAt)}
          </Field>
        </SimpleGrid>
      </Group>
    </Card>
  );
}
