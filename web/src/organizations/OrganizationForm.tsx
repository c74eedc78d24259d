import { Alert, Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { organizationCreate, type OrganizationCreate } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { describeError } from '../messages';

/** An organization's name, checked with the shared `organizationCreate` schema. */
export function OrganizationForm({
  name = '',
  submitLabel,
  onSubmit,
}: {
  name?: string;
  submitLabel: string;
  onSubmit: (values: OrganizationCreate) => Promise<void>;
}) {
  const t = useT();
  const form = useForm<OrganizationCreate>({
    mode: 'controlled',
    initialValues: { name },
    validate: schemaResolver<OrganizationCreate>(organizationCreate),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      setProblem(null);
      try {
        await onSubmit({ name: values.name.trim() });
      } catch (error) {
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
    <form
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-label={t('administrators.organization')}
    >
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('common.notSaved')} role="alert">
            {problem}
          </Alert>
        )}
        <TextInput
          label={t('devices.name')}
          required
          data-autofocus
          {...form.getInputProps('name')}
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
