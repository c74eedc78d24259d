import {
  Alert,
  Button,
  FileInput,
  Group,
  Loader,
  MultiSelect,
  Stack,
  Switch,
  TextInput,
  Title,
} from '@mantine/core';
import type { PersonCreate, PersonOut, SpaceOut } from '@svc/shared';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { describeError } from '../messages';
import { createPerson, getPerson, listAllSpaces, updatePerson, uploadPhoto } from '../resources';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { RequireEdit } from '../access';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { isoToLocalInput, localInputToIso } from './datetime';

const editRoute = getRouteApi('/people/$id/edit');

/** `/people/new` (operators: "Not allowed"). */
export function NewPersonPage() {
  return (
    <RequireEdit>
      <PersonFormPage />
    </RequireEdit>
  );
}

/** `/people/$id/edit` (operators: "Not allowed"). */
export function EditPersonPage() {
  const { id } = editRoute.useParams();
  return (
    <RequireEdit>
      <PersonFormPage id={id} />
    </RequireEdit>
  );
}

/** Create (`id` absent) or edit a person, with an optional new photo. */
function PersonFormPage({ id }: { id?: string }) {
  const person = useApiQuery([...keys.person(id ?? 'new'), 'form'], (signal) =>
    id === undefined ? Promise.resolve(null) : getPerson(id, signal),
  );
  const spaces = useApiQuery(keys.spaces, (signal) => listAllSpaces(signal));
  useDocumentTitle(id === undefined ? 'New person' : 'Edit person');

  if (person.error !== null) {
    return (
      <Alert color="red" title="This person could not be loaded" data-testid="person-error">
        {person.error}
      </Alert>
    );
  }
  if (person.loading && person.data === null) return <Loader aria-label="Loading person" />;
  return (
    <PersonForm key={person.data?.id ?? 'new'} person={person.data} spaces={spaces.data ?? []} />
  );
}

interface Draft {
  name: string;
  idNumber: string;
  spaceIds: string[];
  validFrom: string;
  validUntil: string;
  enabled: boolean;
}

const draftOf = (person: PersonOut | null): Draft => ({
  name: person?.name ?? '',
  idNumber: person?.idNumber ?? '',
  spaceIds: person?.spaceIds ?? [],
  validFrom: isoToLocalInput(person?.validFrom ?? null),
  validUntil: isoToLocalInput(person?.validUntil ?? null),
  enabled: person?.enabled ?? true,
});

type FieldErrors = Partial<Record<keyof Draft | 'photo', string>>;

/** The server's `fields` (zod paths such as `spaceIds.0`) on the inputs they belong to. */
function fieldErrorsOf(error: ApiError): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, problem] of Object.entries(error.fields)) {
    const field = path.split('.')[0] as keyof Draft;
    out[field] = out[field] ?? problem;
  }
  return out;
}

function PersonForm({ person: loaded, spaces }: { person: PersonOut | null; spaces: SpaceOut[] }) {
  // Once a new person is created (and only its photo failed), further saves edit that person.
  const [person, setPerson] = useState(loaded);
  const [draft, setDraft] = useState<Draft>(() => draftOf(person));
  const [photo, setPhoto] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const navigate = useNavigate();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const validFrom = localInputToIso(draft.validFrom);
    const validUntil = localInputToIso(draft.validUntil);
    const local: FieldErrors = {};
    if (draft.name.trim() === '') local.name = 'Enter a name.';
    if (draft.idNumber.trim() === '') local.idNumber = 'Enter an ID number.';
    if (validFrom === undefined) local.validFrom = 'Not a date and time.';
    if (validUntil === undefined) local.validUntil = 'Not a date and time.';
    setErrors(local);
    setProblem(null);
    if (Object.keys(local).length > 0) return;

    const body: PersonCreate = {
      name: draft.name,
      idNumber: draft.idNumber,
      spaceIds: draft.spaceIds,
      validFrom: validFrom ?? null,
      validUntil: validUntil ?? null,
      enabled: draft.enabled,
    };
    setSaving(true);
    let saved: PersonOut;
    try {
      saved = person === null ? await createPerson(body) : await updatePerson(person.id, body);
    } catch (error) {
      setSaving(false);
      if (error instanceof ApiError) setErrors(fieldErrorsOf(error));
      setProblem(describeError(error, 'other'));
      return;
    }
    if (photo !== null) {
      try {
        await uploadPhoto(saved.id, photo);
      } catch (error) {
        setSaving(false);
        const message = describeError(error, 'other');
        setErrors({ photo: message });
        setProblem(
          `The person was saved, but the photo was not: ${message} Choose another photo and save again.`,
        );
        setPerson(saved);
        return;
      }
    }
    await queryClient.invalidateQueries({ queryKey: keys.people });
    await navigate({ to: '/people/$id', params: { id: saved.id } });
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Person">
      <Stack maw={560}>
        {person === null ? (
          <Link to="/people">← Back</Link>
        ) : (
          <Link to="/people/$id" params={{ id: person.id }}>
            ← Back
          </Link>
        )}
        <Title order={1}>{person === null ? 'New person' : `Edit ${person.name}`}</Title>
        {problem !== null && (
          <Alert color="red" title="Not saved" data-testid="form-error" role="alert">
            {problem}
          </Alert>
        )}
        <TextInput
          label="Name"
          required
          value={draft.name}
          onChange={(e) => set('name', e.currentTarget.value)}
          error={errors.name}
          maxLength={128}
        />
        <TextInput
          label="ID number"
          description="Letters, digits, space, . / -"
          required
          value={draft.idNumber}
          onChange={(e) => set('idNumber', e.currentTarget.value)}
          error={errors.idNumber}
          maxLength={64}
        />
        <MultiSelect
          label="Spaces"
          description="The spaces this person may enter"
          data={spaces.map((space) => ({ value: space.id, label: space.name }))}
          value={draft.spaceIds}
          onChange={(value) => set('spaceIds', value)}
          error={errors.spaceIds}
          searchable
          clearable
        />
        <Group grow align="start">
          <TextInput
            type="datetime-local"
            label="Valid from"
            value={draft.validFrom}
            onChange={(e) => set('validFrom', e.currentTarget.value)}
            error={errors.validFrom}
          />
          <TextInput
            type="datetime-local"
            label="Valid until"
            value={draft.validUntil}
            onChange={(e) => set('validUntil', e.currentTarget.value)}
            error={errors.validUntil}
          />
        </Group>
        <Switch
          label="Enabled"
          checked={draft.enabled}
          onChange={(e) => set('enabled', e.currentTarget.checked)}
        />
        <FileInput
          label={person?.photoSha256 ? 'Replace photo' : 'Photo'}
          description="JPEG or PNG, at most 5 MB"
          accept="image/jpeg,image/png"
          value={photo}
          onChange={setPhoto}
          error={errors.photo}
          clearable
        />
        <Group>
          <Button type="submit" loading={saving}>
            {person === null ? 'Create' : 'Save'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
