import { Alert, Card, Group, Image, Loader, SimpleGrid, Text, Title } from '@mantine/core';
import type { PersonOut } from '@svc/shared';
import type { ReactNode } from 'react';
import { getPerson, listAllSpaces, photoUrl } from '../resources';
import { getRouteApi } from '@tanstack/react-router';
import { useCanEdit } from '../access';
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
  const canEdit = useCanEdit();
  const person = useApiQuery(keys.person(id), (signal) => getPerson(id, signal));
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  useDocumentTitle(person.data?.name ?? 'Person');

  return (
    <>
      <Link to="/people">← People</Link>
      {person.error !== null && (
        <Alert color="red" title="This person could not be loaded" data-testid="person-error">
          {person.error}
        </Alert>
      )}
      {person.data === null && person.loading && <Loader aria-label="Loading person" />}
      {person.data !== null && (
        <>
          <Group justify="space-between">
            <Title order={1}>{person.data.name}</Title>
            {canEdit && (
              <Group gap="xs">
                <ButtonLink to="/people/$id/edit" params={{ id }}>
                  Edit
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
      <Text data-testid={testId}>{children}</Text>
    </div>
  );
}

function PersonDetails({ person, spaces }: { person: PersonOut; spaces: string }) {
  const photo = photoUrl(person);
  return (
    <Card withBorder component="section" aria-label="Details">
      <Group align="start" gap="xl">
        {photo === null ? (
          <Text c="dimmed" w={160} data-testid="person-no-photo">
            No photo
          </Text>
        ) : (
          <Image src={photo} alt={`Photo of ${person.name}`} w={160} radius="sm" />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" style={{ flex: 1, minWidth: 240 }}>
          <Field label="Name" testId="person-name">
            {person.name}
          </Field>
          <Field label="ID number" testId="person-id-number">
            {person.idNumber}
          </Field>
          <Field label="Spaces" testId="person-spaces">
            {spaces}
          </Field>
          <Field label="Valid" testId="person-validity">
            {formatValidity(person)}
          </Field>
          <Field label="Status" testId="person-enabled">
            {person.enabled ? 'Enabled' : 'Disabled'}
          </Field>
          <Field label="Phone" testId="person-phone">
            {person.phone ?? '—'}
          </Field>
          <Field label="Last changed" testId="person-updated">
            {formatTime(person.updatedAt)}
          </Field>
        </SimpleGrid>
      </Group>
    </Card>
  );
}
