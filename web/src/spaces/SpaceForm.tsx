import { Select, TextInput } from '@mantine/core';
import { useReportDirty } from '../components/DiscardGuard';
import { useForm } from '@mantine/form';
import { spaceCreate, type SpaceCreate, type SpaceOut } from '@svc/shared';
import { FormShell } from '../components/FormShell';
import { useTheirChanges } from '../conflict';
import { schemaResolver } from '../forms';
import { t, useT } from '../i18n';
import { spaceOptions, subtreeIds } from './tree';

const valuesOf = (s: SpaceOut): SpaceCreate => ({ name: s.name, parentId: s.parentId });
const labels = () => ({ name: t('spaces.name'), parentId: t('spaces.parent') });

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
  onDirty,
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
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<SpaceCreate>({
    mode: 'controlled',
    initialValues: { name: space?.name ?? '', parentId: space?.parentId ?? defaultParentId },
    validate: schemaResolver<SpaceCreate>(spaceCreate),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const nameOf = (id: unknown) => spaces.find((s) => s.id === id)?.name ?? t('spaces.topLevel');
  const conflict = useTheirChanges(form, space, {
    what: t('conflict.what.space'),
    valuesOf,
    labels,
    reread: async () => reread?.(),
    show: (key, value) => (key === 'parentId' ? nameOf(value) : String(value)),
  });
  const exclude = space === undefined ? new Set<string>() : subtreeIds(spaces, space.id);
  const save = (values: SpaceCreate) =>
    onSubmit({ name: values.name.trim(), parentId: values.parentId ?? null }, conflict.base?.etag);

  return (
    <FormShell
      form={form}
      conflict={conflict}
      label={t('spaces.form')}
      submitLabel={submitLabel}
      save={save}
    >
      <TextInput label={t('spaces.name')} required data-autofocus {...form.getInputProps('name')} />
      <Select
        label={t('spaces.parent')}
        description={t('spaces.parentHelp')}
        placeholder={t('spaces.parentNone')}
        data={spaceOptions(spaces, exclude)}
        searchable
        clearable
        {...form.getInputProps('parentId')}
      />
    </FormShell>
  );
}
