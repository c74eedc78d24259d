import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { spaceCreate, type SpaceCreate, type SpaceOut } from '@svc/shared';
import { schemaResolver } from '../forms';
import { useState } from 'react';
import { ApiError } from '../api';
import { describeError } from '../messages';
import { spaceOptions, subtreeIds } from './tree';

/**
 * Name and parent of a space, checked with the shared `spaceCreate` schema (the server's own
 * rule); a refusal shows the server's message and its field errors on the inputs.
 */
export function SpaceForm({
  spaces,
  space,
  defaultParentId = null,
  onSubmit,
  submitLabel,
}: {
  spaces: readonly SpaceOut[];
  /** The space edited; absent: a new one. */
  space?: SpaceOut;
  defaultParentId?: string | null;
  onSubmit: (values: SpaceCreate) => Promise<void>;
  submitLabel: string;
}) {
  const form = useForm<SpaceCreate>({
    mode: 'controlled',
    initialValues: { name: space?.name ?? '', parentId: space?.parentId ?? defaultParentId },
    validate: schemaResolver<SpaceCreate>(spaceCreate),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const exclude = space === undefined ? new Set<string>() : subtreeIds(spaces, space.id);

  const submit = form.onSubmit(async (values) => {
    setSaving(true);
    setProblem(null);
    try {
      await onSubmit({ name: values.name.trim(), parentId: values.parentId ?? null });
    } catch (error) {
      if (error instanceof ApiError) form.setErrors(error.fields);
      setProblem(describeError(error, 'other'));
    } finally {
      setSaving(false);
    }
  });

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Space">
      <Stack>
        {problem !== null && (
          <Alert color="red" title="Not saved" role="alert">
            {problem}
          </Alert>
        )}
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        <Select
          label="Parent"
          description="Leave empty for a space at the top"
          placeholder="None (top level)"
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
