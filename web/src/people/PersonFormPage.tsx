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
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import {
  ErrorCode,
  MAX_PHOTO_UPLOAD_BYTES,
  personCreate,
  type PersonCreate,
  type PersonOut,
  type SpaceOut,
} from '@svc/shared';
import { useEffect, useRef, useState } from 'react';
import { schemaResolver } from '../forms';
import { spaceOptions, spaceTree } from '../spaces/tree';
import { ApiError } from '../api';
import { describeError } from '../messages';
import { leaveNote } from '../flash';
import { LeaveGuard } from '../components/LeaveGuard';
import { listAllSpaces } from '../spaces/api';
import { createPerson, getPerson, updatePerson, uploadPhoto } from './api';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { RequireEdit } from '../access';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { isoToLocalInput, localInputToIso, timeInputHelp } from './datetime';
import {
  isEditConflict,
  mergeTheirChanges,
  TheirChangesNotice,
  type TheirChange,
} from '../conflict';
import { translateMessage } from '../i18n/errors';
import { t, useT } from '../i18n';

const editRoute = getRouteApi('/people/$id/edit');

/** `/people/new` (operators: "Not allowed"). */
export function NewPersonPage() {
  return (
    <RequireEdit reason="editPerson">
      <PersonFormPage />
    </RequireEdit>
  );
}

/** `/people/$id/edit` (operators: "Not allowed"). */
export function EditPersonPage() {
  const { id } = editRoute.useParams();
  return (
    <RequireEdit reason="editPerson">
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
  const t = useT();
  useDocumentTitle(id === undefined ? t('people.new') : t('people.editTitle'));

  if (person.error !== null) {
    return (
      <Alert color="red" title={t('people.notLoadedOne')} data-testid="person-error">
        {person.error}
      </Alert>
    );
  }
  if (person.loading && person.data === null) {
    return <Loader role="status" aria-label={t('people.loadingOne')} />;
  }
  return (
    <PersonForm key={person.data?.id ?? 'new'} person={person.data} spaces={spaces.data ?? []} />
  );
}

interface Draft {
  name: string;
  idNumber: string;
  phone: string;
  notes: string;
  spaceIds: string[];
  validFrom: string;
  validUntil: string;
  enabled: boolean;
}

const draftOf = (person: PersonOut | null): Draft => ({
  name: person?.name ?? '',
  idNumber: person?.idNumber ?? '',
  phone: person?.phone ?? '',
  notes: person?.notes ?? '',
  spaceIds: [...(person?.spaceIds ?? [])].sort(),
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
  phone: draft.phone.trim() === '' ? null : draft.phone,
  notes: draft.notes.trim() === '' ? null : draft.notes,
  spaceIds: draft.spaceIds,
  validFrom: timeOf(draft.validFrom),
  validUntil: timeOf(draft.validUntil),
  enabled: draft.enabled,
});

/**
 * A validity bound the form left as it was keeps its stored instant: the box shows minutes,
 * and a whole day ends at 23:59:59.999, which the box cannot say.
 */
function keepUntouchedValidity(body: PersonCreate, draft: Draft, person: PersonOut | null) {
  if (person === null) return body;
  const loaded = draftOf(person);
  return {
    ...body,
    ...(draft.validFrom === loaded.validFrom && { validFrom: person.validFrom }),
    ...(draft.validUntil === loaded.validUntil && { validUntil: person.validUntil }),
  };
}

const personLabels = (): Partial<Record<keyof Draft, string>> => ({
  name: t('people.name'),
  idNumber: t('people.idNumber'),
  phone: t('people.phone'),
  notes: t('people.notes'),
  spaceIds: t('people.spaces'),
  validFrom: t('people.validFrom'),
  validUntil: t('people.validUntil'),
  enabled: t('people.enabled'),
});

function showValue(key: keyof Draft, value: unknown, spaces: readonly SpaceOut[]): string {
  if (key === 'spaceIds' && Array.isArray(value)) {
    const names = new Map(spaces.map((s) => [s.id, s.name]));
    return value.length === 0
      ? t('conflict.none')
      : value.map((id) => names.get(String(id)) ?? '?').join(t('conflict.listSeparator'));
  }
  if (typeof value === 'boolean') return value ? t('conflict.yes') : t('conflict.no');
  if (value === '' || value === null) return t('conflict.empty');
  return typeof value === 'string' ? value.replace('T', ' ') : JSON.stringify(value);
}

/** The server's `fields` (zod paths such as `spaceIds.0`) on the inputs they belong to. */
function fieldErrorsOf(error: ApiError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, problem] of Object.entries(error.fields)) {
    const field = path.split('.')[0] ?? path;
    out[field] = out[field] ?? problem;
  }
  return out;
}

/** Why a chosen photo cannot be sent, judged in the browser before anything is saved. */
function photoProblem(file: File): string | null {
  if (file.size > MAX_PHOTO_UPLOAD_BYTES) {
    return translateMessage('photo_too_large', { max: MAX_PHOTO_UPLOAD_BYTES / 1024 / 1024 });
  }
  if (!['image/jpeg', 'image/png'].includes(file.type)) {
    return translateMessage('photo_not_image', { file: file.name });
  }
  return null;
}

/**
 * A local preview of the chosen photo, as a data: URL. A blob: URL is not enough under the
 * site's CSP: anything that reads the picture back (a screenshot or trace tool, an extension)
 * fetches it, and `connect-src 'self'` refuses blob: (the page then reports a CSP error).
 */
function usePreview(photo: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    setUrl(null);
    if (photo === null) return;
    const reader = new FileReader();
    reader.onload = () => {
      if (typeof reader.result === 'string') setUrl(reader.result);
    };
    reader.readAsDataURL(photo);
    return () => reader.abort();
  }, [photo]);
  return url;
}

function PersonForm({ person: loaded, spaces }: { person: PersonOut | null; spaces: SpaceOut[] }) {
  const t = useT();
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
  // A file refused in the browser is not previewed (it is no photo, or too large to decode).
  const preview = usePreview(photoError === null ? photo : null);
  const [problem, setProblem] = useState<string | null>(null);
  // The person saved, the photo refused: the box says "saved without the photo", not "not saved".
  const [photoOnly, setPhotoOnly] = useState(false);
  const [theirChanges, setTheirChanges] = useState<TheirChange[] | null>(null);
  const [saving, setSaving] = useState(false);
  // The photo is on its way and the server's face check runs: it can take seconds.
  const [checkingPhoto, setCheckingPhoto] = useState(false);
  // Set once saved, so going to the person's page is not taken for leaving unsaved work.
  const leaving = useRef(false);
  const navigate = useNavigate();
  const tree = spaceTree(spaces);
  const depth = new Map(tree.map((node) => [node.space.id, node.depth]));

  /** Someone else saved first: their changes into the fields left alone, and said which. */
  const reviewTheirChanges = async (mine: PersonOut, draft: Draft) => {
    const current = await getPerson(mine.id);
    const { merged, changes } = mergeTheirChanges(
      draftOf(mine),
      draftOf(current),
      draft,
      personLabels(),
      (key, value) => showValue(key, value, spaces),
    );
    setPerson(current);
    form.setValues(merged);
    setTheirChanges(changes);
  };

  const submit = async (draft: Draft) => {
    setProblem(null);
    setPhotoOnly(false);
    setTheirChanges(null);
    const refused = photo === null ? null : photoProblem(photo);
    if (refused !== null) {
      // One outcome: with a photo that cannot be sent, nothing is saved at all.
      setPhotoError(refused);
      setProblem(t('people.form.nothingSaved', { problem: refused }));
      return;
    }
    const body = keepUntouchedValidity(bodyOf(draft), draft, person);
    setSaving(true);
    let saved: PersonOut;
    try {
      saved =
        person === null
          ? await createPerson(body)
          : await updatePerson(person.id, body, person.etag);
    } catch (error) {
      setSaving(false);
      if (person !== null && isEditConflict(error)) {
        await reviewTheirChanges(person, draft).catch((e: unknown) =>
          setProblem(describeError(e, 'other')),
        );
        return;
      }
      if (error instanceof ApiError) form.setErrors(fieldErrorsOf(error));
      setProblem(describeError(error, 'other'));
      return;
    }
    if (photo !== null) {
      setCheckingPhoto(true);
      try {
        await uploadPhoto(saved.id, photo, faceRefused && acceptFace);
        setCheckingPhoto(false);
      } catch (error) {
        setCheckingPhoto(false);
        setSaving(false);
        const message = describeError(error, 'other');
        if (person === null) {
          // A new person exists now: their page says so, rather than a form that still reads
          // "new" and would create them twice.
          leaveNote(saved.id, t('people.form.savedWithoutPhoto', { problem: message }));
          await queryClient.invalidateQueries({ queryKey: keys.people });
          leaving.current = true;
          await navigate({ to: '/people/$id', params: { id: saved.id } });
          return;
        }
        setFaceRefused(error instanceof ApiError && error.code === ErrorCode.faceCheckFailed);
        setPhotoError(message);
        setProblem(t('people.form.photoNotSaved', { problem: message }));
        setPhotoOnly(true);
        setPerson(saved);
        return;
      }
    }
    await queryClient.invalidateQueries({ queryKey: keys.people });
    leaving.current = true;
    await navigate({ to: '/people/$id', params: { id: saved.id } });
  };

  return (
    <form
      onSubmit={form.onSubmit(
        (values) => void submit(values),
        // Refused by the form's own check: the last outcome no longer stands (old banners clear).
        () => {
          setProblem(null);
          setTheirChanges(null);
        },
      )}
      noValidate
      aria-label={t('events.person')}
    >
      <LeaveGuard when={() => !leaving.current && (form.isDirty() || photo !== null)} />
      <Stack maw={560}>
        {person === null ? (
          <Link to="/people">{t('people.form.back')}</Link>
        ) : (
          <Link to="/people/$id" params={{ id: person.id }}>
            {t('people.form.back')}
          </Link>
        )}
        <Title order={1}>
          {person === null ? t('people.new') : t('people.form.editName', { name: person.name })}
        </Title>
        {problem !== null && (
          <Alert
            color="red"
            title={photoOnly ? t('people.savedWithoutPhoto') : t('common.notSaved')}
            data-testid="form-error"
            role="alert"
          >
            {problem}
          </Alert>
        )}
        {theirChanges !== null && (
          <TheirChangesNotice what={t('conflict.what.person')} changes={theirChanges} />
        )}
        {/* No HTML maxLength: it would cut a pasted text short without a word; the shared
            schema's "at most N characters" shows under the field instead. */}
        <TextInput label={t('people.name')} required {...form.getInputProps('name')} />
        <TextInput
          label={t('people.idNumber')}
          description={t('people.form.idNumberHelp')}
          required
          {...form.getInputProps('idNumber')}
        />
        <TextInput
          label={t('people.phone')}
          description={t('people.form.phoneHelp')}
          {...form.getInputProps('phone')}
        />
        <Textarea label={t('people.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <MultiSelect
          label={t('people.spaces')}
          description={t('people.form.spacesHelp')}
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
            label={t('people.validFrom')}
            description={timeInputHelp()}
            {...form.getInputProps('validFrom')}
          />
          <TextInput
            type="datetime-local"
            label={t('people.validUntil')}
            description={timeInputHelp()}
            {...form.getInputProps('validUntil')}
          />
        </Group>
        <Switch
          label={t('people.enabled')}
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <FileInput
          label={person?.photoSha256 ? t('people.form.replacePhoto') : t('people.photo')}
          description={t('people.form.photoHelp', {
            max: MAX_PHOTO_UPLOAD_BYTES / 1024 / 1024,
          })}
          accept="image/jpeg,image/png"
          value={photo}
          onChange={(file) => {
            setPhoto(file);
            setPhotoError(file === null ? null : photoProblem(file));
            setFaceRefused(false);
            setAcceptFace(false);
          }}
          error={photoError}
          clearable
          clearButtonProps={{ 'aria-label': t('people.form.clearPhoto') }}
        />
        {faceRefused && (
          <Checkbox
            label={t('people.form.useAnyway')}
            description={t('people.form.useAnywayHelp')}
            checked={acceptFace}
            onChange={(e) => setAcceptFace(e.currentTarget.checked)}
          />
        )}
        {preview !== null && (
          <Image
            src={preview}
            alt={t('people.form.preview')}
            w={160}
            radius="sm"
            data-testid="photo-preview"
          />
        )}
        <Group>
          <Button type="submit" loading={saving}>
            {person === null ? t('spaces.create') : t('common.save')}
          </Button>
          {/* Always present, so a screen reader hears the text when it appears. */}
          <Text size="sm" c="dimmed" role="status" data-testid="photo-status">
            {checkingPhoto ? t('photo.checking') : null}
          </Text>
        </Group>
      </Stack>
    </form>
  );
}
