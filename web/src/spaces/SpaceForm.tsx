import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { spaceCreate, type SpaceCreate, type SpaceOut } from '@svc/shared';
import { schemaResolver } from '../forms';
import { useState } from 'react';
import { ApiError } from '../api';
import { useT } from '../i18n';
import { describeError } from '../messages';
import { spaceOptions, subtreeIds } from './tree';
import {
  isEditConflict,
  mergeTheirChanges,
  TheirChangesNotice,
  type TheirChange,
} from '../conflict';

/**
 * Name and parent of a space, checked with the shared `spaceCreate` schema (the server's own
 * rule); a refusal shows the server's message and its field errors on the inputs.
 */
export function SpaceForm({
  spaces,
  space,
  defaultParentId = null,
  onSubmit,
  reread,
  submitLabel,
}: {
  spaces: readonly SpaceOut[];
  /** The space edited; absent: a new one. */
  space?: SpaceOut;
  defaultParentId?: string | null;
  /** `etag`: the edited space's state the form last saw (sent as If-Match). */
  onSubmit: (values: SpaceCreate, etag?: string) => Promise<void>;
  /** The edited space as it is now (after someone else saved first). */
  reread?: () => Promise<SpaceOut | undefined>;
  submitLabel: string;
}) {
  const t = useT();
  const form = useForm<SpaceCreate>({
    mode: 'controlled',
    initialValues: { name: space?.name ?? '', parentId: space?.parentId ?? defaultParentId },
    validate: schemaResolver<SpaceCreate>(spaceCreate),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [base, setBase] = useState(space);
  const [theirChanges, setTheirChanges] = useState<TheirChange[] | null>(null);
  const [saving, setSaving] = useState(false);
  const nameOf = (id: unknown) => spaces.find((s) => s.id === id)?.name ?? t('spaces.topLevel');
  const exclude = space === undefined ? new Set<string>() : subtreeIds(spaces, space.id);

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      setProblem(null);
      setTheirChanges(null);
      try {
        await onSubmit({ name: values.name.trim(), parentId: values.parentId ?? null }, base?.etag);
      } catch (error) {
        const current = base && reread && isEditConflict(error) ? await reread() : undefined;
        if (base && current) {
          const shape = (s: SpaceOut) => ({ name: s.name, parentId: s.parentId });
          const { merged, changes } = mergeTheirChanges(
            shape(base),
            shape(current),
            { name: values.name, parentId: values.parentId ?? null },
            { name: t('spaces.name'), parentId: t('spaces.parent') },
            (key, value) => (key === 'parentId' ? nameOf(value) : String(value)),
          );
          setBase(current);
          form.setValues(merged);
          setTheirChanges(changes);
          return;
        }
        if (error instanceof ApiError) form.setErrors(error.fields);
        setProblem(describeError(error, 'other'));
      } finally {
        setSaving(false);
      }
    },
    // Refused by the form's own check: the last outcome no longer stands (old banners clear).
    () => setProblem(null),
  );

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label={t('spaces.form')}>
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('common.notSaved')} role="alert">
            {problem}
          </Alert>
        )}
        {theirChanges !== null && (
          <TheirChangesNotice what={t('conflict.what.space')} changes={theirChanges} />
        )}
        <TextInput
          label={t('spaces.name')}
          required
          data-autofocus
          {...form.getInputProps('name')}
        />
        <Select
          label={t('spaces.parent')}
          description={t('spaces.parentHelp')}
          placeholder={t('spaces.parentNone')}
          data={spaceOptions(spaces, exclude)}
          searchable
          clearable
          {...form.getInputProps('parentId')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
