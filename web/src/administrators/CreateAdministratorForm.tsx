import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { administratorCreate, type SessionUser } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import { schemaResolver } from '../forms';
import { describeError } from '../messages';
import type { AdministratorCreate } from './api';

interface Values {
  username: string;
  displayName: string;
  role: SessionUser['role'];
}

const roles: { value: SessionUser['role']; label: string }[] = [
  { value: 'operator', label: 'Operator (reads only)' },
  { value: 'admin', label: 'Administrator' },
  { value: 'superadmin', label: 'Super administrator' },
];

function toBody(values: Values): AdministratorCreate {
  return {
    username: values.username.trim(),
    role: values.role,
    ...(values.displayName.trim() !== '' && { displayName: values.displayName.trim() }),
  };
}

/** Username, display name and role, checked with the shared `administratorCreate` schema. */
export function CreateAdministratorForm({
  actorRole,
  onSubmit,
}: {
  actorRole: SessionUser['role'];
  onSubmit: (body: AdministratorCreate) => Promise<void>;
}) {
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { username: '', displayName: '', role: 'operator' },
    validate: schemaResolver<Values>(administratorCreate, toBody),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(async (values) => {
    setSaving(true);
    setProblem(null);
    try {
      await onSubmit(toBody(values));
    } catch (error) {
      if (error instanceof ApiError) form.setErrors(error.fields);
      setProblem(describeError(error, 'other'));
    } finally {
      setSaving(false);
    }
  });

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="New administrator" noValidate>
      <Stack>
        {problem !== null && (
          <Alert color="red" title="Not created" role="alert">
            {problem}
          </Alert>
        )}
        <TextInput label="Username" required data-autofocus {...form.getInputProps('username')} />
        <TextInput label="Display name" {...form.getInputProps('displayName')} />
        <Select
          label="Role"
          data={roles.filter((r) => actorRole === 'superadmin' || r.value !== 'superadmin')}
          allowDeselect={false}
          {...form.getInputProps('role')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Create
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
