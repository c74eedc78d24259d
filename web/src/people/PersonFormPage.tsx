import { Alert, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { ErrorCode, personCreate, type PersonOut, type SpaceOut } from '@svc/shared';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { RequireEdit } from '../access';
import { ApiError } from '../api';
import { LeaveGuard } from '../components/LeaveGuard';
import { TheirChangesNotice, useTheirChanges, type ConflictReview } from '../conflict';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { describeError } from '../messages';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { listAllSpaces } from '../spaces/api';
import { useDocumentTitle } from '../useDocumentTitle';
import { useFormSubmit, type FormSubmit, type SubmitOutcome } from '../useFormSubmit';
import { createPerson, getPerson, updatePerson } from './api';
import {
  bodyOf,
  draftOf,
  keepUntouchedValidity,
  personLabels,
  showValue,
  type Draft,
} from './draft';
import { AccessFields, IdentityFields } from './PersonFields';
import { handOver, takeOver } from './handover';
import { PhotoField, usePhotoChoice } from './PhotoField';

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

function PersonForm({ person: loaded, spaces }: { person: PersonOut | null; spaces: SpaceOut[] }) {
  const t = useT();
  const form = useForm<Draft>({
    initialValues: draftOf(loaded),
    validate: schemaResolver<Draft>(personCreate, bodyOf),
    validateInputOnChange: true,
  });
  const conflict = usePersonConflict(form, loaded, spaces);
  // Further saves edit the person the form was opened with (or last saved).
  const person = conflict.base;
  // This person was just created by the new-person form, their photo refused (./handover).
  const [handed] = useState(() => (loaded === null ? null : takeOver(loaded.id)));
  const submit = useFormSubmit(form, {
    conflict,
    initial: handed && {
      ok: false,
      text: t('people.form.createdWithoutPhoto', { problem: handed.problem }),
    },
  });
  const photo = usePhotoChoice(handed);
  // The person saved, the photo refused: the box says "saved without the photo", not "not saved".
  const [photoOnly, setPhotoOnly] = useState(handed !== null);
  const { leaving, leaveFor } = useLeaveSaved();

  const save = submit.handler(async (draft): Promise<SubmitOutcome> => {
    setPhotoOnly(false);
    const refused = photo.check();
    // One outcome: with a photo that cannot be sent, nothing is saved at all.
    if (refused !== null) {
      return { ok: false, text: t('people.form.nothingSaved', { problem: refused }) };
    }
    const body = keepUntouchedValidity(bodyOf(draft), draft, person);
    const saved =
      person === null ? await createPerson(body) : await updatePerson(person.id, body, person.etag);
    const failure = photo.file === null ? null : await photo.send(saved.id, photo.file);
    if (failure === null) {
      await leaveFor(saved.id);
      return null;
    }
    const problem = describeError(failure, 'other');
    const byFaceCheck = failure instanceof ApiError && failure.code === ErrorCode.faceCheckFailed;
    if (person === null && photo.file !== null) {
      // The person exists now: the form becomes their edit form, the photo still chosen, so
      // the next Save edits them (a form that still read "new" would create them twice) and
      // the address (a reload, a bookmark) says whom it edits.
      handOver(saved.id, { file: photo.file, problem, byFaceCheck });
      await leaveFor(saved.id, true);
      return null;
    }
    photo.refused(problem, byFaceCheck);
    setPhotoOnly(true);
    conflict.setBase(saved);
    return { ok: false, text: t('people.form.photoNotSaved', { problem }) };
  });

  return (
    <form onSubmit={save} noValidate aria-label={t('events.person')}>
      <LeaveGuard when={() => !leaving.current && (form.isDirty() || photo.file !== null)} />
      <Stack maw={560}>
        <PersonFormHead person={person} submit={submit} conflict={conflict} photoOnly={photoOnly} />
        <IdentityFields form={form} />
        <AccessFields form={form} spaces={spaces} />
        <PhotoField choice={photo} hasPhoto={Boolean(person?.photoSha256)} />
        <Group>
          <Button type="submit" loading={submit.busy}>
            {person === null ? t('spaces.create') : t('common.save')}
          </Button>
          {/* Always present, so a screen reader hears the text when it appears. */}
          <Text size="sm" c="dimmed" role="status" data-testid="photo-status">
            {photo.sending ? t('photo.checking') : null}
          </Text>
        </Group>
      </Stack>
    </form>
  );
}

/** Someone else's save of the person (conflict.tsx), their fields said as the form shows them. */
function usePersonConflict(
  form: UseFormReturnType<Draft>,
  loaded: PersonOut | null,
  spaces: SpaceOut[],
) {
  const t = useT();
  return useTheirChanges(form, loaded, {
    what: t('conflict.what.person'),
    valuesOf: draftOf,
    labels: personLabels,
    reread: (mine) => getPerson(mine.id),
    show: (key, value) => showValue(key, value, spaces),
  });
}

/** Leaving the form once saved: `leaving` tells its LeaveGuard that no unsaved work is lost. */
function useLeaveSaved() {
  const leaving = useRef(false);
  const navigate = useNavigate();
  /** For the person's page, or (`edit`) for their edit form in place of this one. */
  const leaveFor = async (id: string, edit = false) => {
    await queryClient.invalidateQueries({ queryKey: keys.people });
    leaving.current = true;
    await (edit
      ? navigate({ to: '/people/$id/edit', params: { id }, replace: true })
      : navigate({ to: '/people/$id', params: { id } }));
  };
  return { leaving, leaveFor };
}

/** The way back, the heading, and the outcome of the last save above the fields. */
function PersonFormHead({
  person,
  submit,
  conflict,
  photoOnly,
}: {
  person: PersonOut | null;
  submit: FormSubmit<Draft>;
  conflict: ConflictReview<Draft>;
  /** The person was saved, only the photo was refused. */
  photoOnly: boolean;
}) {
  const t = useT();
  return (
    <>
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
      {submit.message !== null && (
        <Alert
          color="red"
          title={photoOnly ? t('people.savedWithoutPhoto') : t('common.notSaved')}
          data-testid="form-error"
          role="alert"
        >
          {submit.message.text}
        </Alert>
      )}
      {conflict.changes !== null && (
        <TheirChangesNotice what={conflict.what} changes={conflict.changes} />
      )}
    </>
  );
}
