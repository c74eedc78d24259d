import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { administratorCreate, type SessionUser } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import { schemaResolver } from '../forms';
import { t as translate, useT } from '../i18n';
import { useReportDirty } from '../components/DiscardGuard';
import { describeError } from '../messages';
import type { AdministratorCreate } from './api';

interface Values {
  username: string;
  displayName: string;
  role: SessionUser['role'];
  /** '' unless a superadmin chooses (then the server puts it in the organization worked in). */
  organizationId: string;
}

/** Catalog keys of the roles as the list names them. */
const roles: { value: SessionUser['role']; label: string }[] = [
  { value: 'operator', label: 'administrators.operatorReadsOnly' },
  { value: 'admin', label: 'roles.admin' },
  { value: 'superadmin', label: 'roles.superadmin' },
];

/** The roles `actorRole` may give: only a super administrator gives that role. */
export function roleOptions(actorRole: SessionUser['role']) {
  return roles
    .filter((r) => actorRole === 'superadmin' || r.value !== 'superadmin')
    .map((r) => ({ value: r.value, label: translate(r.label) }));
}

function toBody(values: Values): AdministratorCreate {
  return {
    username: values.username.trim(),
    role: values.role,
    ...(values.organizationId !== '' && { organizationId: values.organizationId }),
    ...(values.displayName.trim() !== '' && { displayName: values.displayName.trim() }),
  };
}

/**
 * Username, display name and role, checked with the shared `administratorCreate` schema. A
 * superadmin also chooses the organization the account belongs to (`organizations`); anyone
 * else creates in their own.
 */
export function CreateAdministratorForm({
  actorRole,
  organizations,
  organizationId = '',
  onSubmit,
  onDirty,
}: {
  actorRole: SessionUser['role'];
  organizations?: { value: string; label: string }[];
  /** The organization chosen at first. */
  organizationId?: string;
  onSubmit: (body: AdministratorCreate) => Promise<void>;
  /** Whether anything was typed, for the dialog's question on closing. */
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { username: '', displayName: '', role: 'operator', organizationId },
    validate: schemaResolver<Values>(administratorCreate, toBody),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(
    async (values) => {
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
    },
    // Refused by the form's own check: the last outcome no longer stands (old banners clear).
    () => setProblem(null),
  );

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t('administrators.new')} noValidate>
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('common.notCreated')} role="alert">
            {problem}
          </Alert>
        )}
        <TextInput
          label={t('administrators.username')}
          required
          data-autofocus
          {...form.getInputProps('username')}
        />
        <TextInput label={t('administrators.displayName')} {...form.getInputProps('displayName')} />
        {organizations !== undefined && (
          <Select
            label={t('administrators.organization')}
            description={t('administrators.organizationHelp')}
            data={organizations}
            allowDeselect={false}
            {...form.getInputProps('organizationId')}
          />
        )}
        <Select
          label={t('administrators.role')}
          data={roleOptions(actorRole)}
          allowDeselect={false}
          {...form.getInputProps('role')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('spaces.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
