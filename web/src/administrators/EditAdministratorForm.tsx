import { Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { administratorUpdate, type SessionUser } from '@svc/shared';
import { FormShell } from '../components/FormShell';
import { useReportDirty } from '../components/DiscardGuard';
import { useTheirChanges } from '../conflict';
import { schemaResolver } from '../forms';
import { t, useT } from '../i18n';
import { getAdministrator, updateAdministrator, type Administrator } from './api';
import { RoleFields, roleOptions } from './CreateAdministratorForm';

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
    // An empty display name is none: the account goes by its user name, as when created so.
    validate: schemaResolver<Values>(administratorUpdate, (v) => ({
      ...v,
      displayName: v.displayName.trim() === '' ? undefined : v.displayName,
    })),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const conflict = useTheirChanges(form, administrator, {
    what: t('conflict.what.administrator'),
    valuesOf,
    labels,
    reread: (base) => getAdministrator(base.id),
    show: (key, value) => shown(key, value, organizations),
  });
  const { base } = conflict;
  const save = async (values: Values) => {
    await updateAdministrator(base.id, bodyOf(values, base, organizations), base.etag);
    await onSaved();
  };

  return (
    <FormShell form={form} conflict={conflict} label={t('administrators.editForm')} save={save}>
      <Text size="sm">{t('administrators.usernameFixed', { username: base.username })}</Text>
      <TextInput
        label={t('administrators.displayName')}
        data-autofocus
        {...form.getInputProps('displayName')}
      />
      <RoleFields
        form={form}
        organizations={organizations}
        roles={roleOptions(actorRole)}
        roleHelp={self ? t('administrators.ownRole') : undefined}
        roleFixed={self}
      />
    </FormShell>
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

/**
 * Only what changed is sent: an unchanged role is no role change (nor refused as one). A
 * display name cleared becomes the user name, what an account created without one shows.
 */
function bodyOf(
  values: Values,
  base: Administrator,
  organizations: { value: string }[] | undefined,
) {
  const displayName = values.displayName.trim() === '' ? base.username : values.displayName.trim();
  return {
    ...(displayName !== base.displayName && { displayName }),
    ...(values.role !== base.role && { role: values.role }),
    ...(organizations !== undefined &&
      values.organizationId !== base.organizationId && { organizationId: values.organizationId }),
  };
}
