import { Alert, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { administratorUpdate, type SessionUser } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import { useReportDirty } from '../components/DiscardGuard';
import {
  isEditConflict,
  mergeTheirChanges,
  TheirChangesNotice,
  type TheirChange,
} from '../conflict';
import { schemaResolver } from '../forms';
import { t, useT } from '../i18n';
import { describeError } from '../messages';
import { getAdministrator, updateAdministrator, type Administrator } from './api';
import { roleOptions } from './CreateAdministratorForm';

interface Values {
  displayName: string;
  role: SessionUser['role'];
  organizationId: string;
}

const valuesOf = (a: Administrator): Values => ({
  displayName: a.displayName,
  role: a.role,
  organizationId: a.organizationId,
});

/**
 * An account's display name, role and (a super administrator's choice) organization, checked
 * with the shared `administratorUpdate` schema and saved over the state it was opened with
 * (If-Match). Nobody changes their own role: the server refuses it, and the form says so
 * rather than offering it (so nobody demotes themselves out of the last super administrator).
 */
export function EditAdministratorForm({
  administrator,
  actorRole,
  self,
  organizations,
  onSaved,
  onDirty,
}: {
  administrator: Administrator;
  actorRole: SessionUser['role'];
  /** The account is the signed-in administrator's own. */
  self: boolean;
  organizations?: { value: string; label: string }[];
  onSaved: () => Promise<void>;
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf(administrator),
    // An empty display name is left as it was (the list then shows the username alone).
    validate: schemaResolver<Values>(administratorUpdate, (v) => ({
      ...v,
      displayName: v.displayName.trim() === '' ? undefined : v.displayName,
    })),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const [base, setBase] = useState(administrator);
  const [problem, setProblem] = useState<string | null>(null);
  const [theirChanges, setTheirChanges] = useState<TheirChange[] | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      setProblem(null);
      setTheirChanges(null);
      try {
        await updateAdministrator(base.id, bodyOf(values, base, organizations), base.etag);
        await onSaved();
      } catch (error) {
        if (isEditConflict(error)) {
          const current = await getAdministrator(base.id);
          const merged = mergeTheirChanges(
            valuesOf(base),
            valuesOf(current),
            values,
            labels(),
            (key, value) => shown(key, value, organizations),
          );
          setBase(current);
          form.setValues(merged.merged);
          setTheirChanges(merged.changes);
          return;
        }
        if (error instanceof ApiError) form.setErrors(error.fields);
        setProblem(describeError(error, 'other'));
      } finally {
        setSaving(false);
      }
    },
    () => setProblem(null),
  );

  return (
    <form
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-label={t('administrators.editForm')}
    >
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('common.notSaved')} role="alert">
            {problem}
          </Alert>
        )}
        {theirChanges !== null && (
          <TheirChangesNotice what={t('conflict.what.administrator')} changes={theirChanges} />
        )}
        <Text size="sm">{t('administrators.usernameFixed', { username: base.username })}</Text>
        <TextInput
          label={t('administrators.displayName')}
          data-autofocus
          {...form.getInputProps('displayName')}
        />
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
          description={self ? t('administrators.ownRole') : undefined}
          data={roleOptions(actorRole)}
          allowDeselect={false}
          disabled={self}
          {...form.getInputProps('role')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

const labels = () => ({
  displayName: t('administrators.displayName'),
  role: t('administrators.role'),
  organizationId: t('administrators.organization'),
});

function shown(
  key: keyof Values,
  value: string,
  organizations: { value: string; label: string }[] | undefined,
): string {
  if (key === 'role') return t(`roles.${value}`);
  if (key === 'organizationId')
    return organizations?.find((o) => o.value === value)?.label ?? value;
  return value === '' ? t('conflict.empty') : value;
}

/** Only what changed is sent: an unchanged role is no role change (nor refused as one). */
function bodyOf(
  values: Values,
  base: Administrator,
  organizations: { value: string }[] | undefined,
) {
  return {
    ...(values.displayName.trim() !== '' &&
      values.displayName.trim() !== base.displayName && {
        displayName: values.displayName.trim(),
      }),
    ...(values.role !== base.role && { role: values.role }),
    ...(organizations !== undefined &&
      values.organizationId !== base.organizationId && { organizationId: values.organizationId }),
  };
}
