import {
  Alert,
  Checkbox,
  Button,
  FileInput,
  Group,
  Image,
  Loader,
  MultiSelect,
  Stack,
  Switch,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import {
  ErrorCode,
  personCreate,
  type PersonCreate,
  type PersonOut,
  type SpaceOut,
} from '@svc/shared';
import { useEffect, useState } from 'react';
import { schemaResolver } from '../forms';
import { spaceOptions, spaceTree } from '../spaces/tree';
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

/** ISO time of a local input, null when empty, the text itself when nonsense. */
function timeOf(value: string): string | null {
  const iso = localInputToIso(value);
  return iso === undefined ? value : iso;
}

/** The request body of the form's values; a nonsense date stays text so the schema names it. */
const bodyOf = (draft: Draft): PersonCreate => ({
  name: draft.name,
  idNumber: draft.idNumber,
  spaceIds: draft.spaceIds,
  validFrom: timeOf(draft.validFrom),
  validUntil: timeOf(draft.validUntil),
  enabled: draft.enabled,
});

/** The server's `fields` (zod paths such as `spaceIds.0`) on the inputs they belong to. */
function fieldErrorsOf(error: ApiError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, problem] of Object.entries(error.fields)) {
    const field = path.split('.')[0] ?? path;
    out[field] = out[field] ?? problem;
  }
  return out;
}

/** A local preview of the chosen photo (revoked when replaced or left). */
function usePreview(photo: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (photo === null) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(photo);
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [photo]);
  return url;
}

function PersonForm({ person: loaded, spaces }: { person: PersonOut | null; spaces: SpaceOut[] }) {
  // Once a new person is created (and only its photo failed), further saves edit that person.
  const [person, setPerson] = useState(loaded);
  const form = useForm<Draft>({
    initialValues: draftOf(person),
    validate: schemaResolver<Draft>(personCreate, bodyOf),
    validateInputOnChange: true,
  });
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoError, setPhotoError] = useState<string | null>(null);
  // The face check refused this photo: the administrator may keep it anyway (audited).
  const [faceRefused, setFaceRefused] = useState(false);
  const [acceptFace, setAcceptFace] = useState(false);
  const preview = usePreview(photo);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const navigate = useNavigate();
  const tree = spaceTree(spaces);
  const depth = new Map(tree.map((node) => [node.space.id, node.depth]));

  const submit = async (draft: Draft) => {
    setProblem(null);
    const body = bodyOf(draft);
    setSaving(true);
    let saved: PersonOut;
    try {
      saved = person === null ? await createPerson(body) : await updatePerson(person.id, body);
    } catch (error) {
      setSaving(false);
      if (error instanceof ApiError) form.setErrors(fieldErrorsOf(error));
      setProblem(describeError(error, 'other'));
      return;
    }
    if (photo !== null) {
      try {
        await uploadPhoto(saved.id, photo, faceRefused && acceptFace);
      } catch (error) {
        setSaving(false);
        const message = describeError(error, 'other');
        setFaceRefused(error instanceof ApiError && error.code === ErrorCode.faceCheckFailed);
        setPhotoError(message);
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
    <form onSubmit={form.onSubmit((values) => void submit(values))} noValidate aria-label="Person">
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
        <TextInput label="Name" required {...form.getInputProps('name')} maxLength={128} />
        <TextInput
          label="ID number"
          description="Letters, digits, space, . / -"
          required
          {...form.getInputProps('idNumber')}
          maxLength={64}
        />
        <MultiSelect
          label="Spaces"
          description="The spaces this person may enter"
          data={spaceOptions(spaces)}
          renderOption={({ option }) => (
            <span style={{ paddingLeft: `${(depth.get(option.value) ?? 0) * 16}px` }}>
              {option.label}
            </span>
          )}
          {...form.getInputProps('spaceIds')}
          searchable
          clearable
        />
        <Group grow align="start">
          <TextInput
            type="datetime-local"
            label="Valid from"
            {...form.getInputProps('validFrom')}
          />
          <TextInput
            type="datetime-local"
            label="Valid until"
            {...form.getInputProps('validUntil')}
          />
        </Group>
        <Switch label="Enabled" {...form.getInputProps('enabled', { type: 'checkbox' })} />
        <FileInput
          label={person?.photoSha256 ? 'Replace photo' : 'Photo'}
          description="JPEG or PNG, at most 5 MB"
          accept="image/jpeg,image/png"
          value={photo}
          onChange={(file) => {
            setPhoto(file);
            setPhotoError(null);
            setFaceRefused(false);
            setAcceptFace(false);
          }}
          error={photoError}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the chosen photo' }}
        />
        {faceRefused && (
          <Checkbox
            label="Use this photo anyway"
            description="The face check can be wrong: keep this photo if you checked the face yourself. Your name is recorded in the audit log."
            checked={acceptFace}
            onChange={(e) => setAcceptFace(e.currentTarget.checked)}
          />
        )}
        {preview !== null && (
          <Image
            src={preview}
            alt="Photo preview"
            w={160}
            radius="sm"
            data-testid="photo-preview"
          />
        )}
        <Group>
          <Button type="submit" loading={saving}>
            {person === null ? 'Create' : 'Save'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
