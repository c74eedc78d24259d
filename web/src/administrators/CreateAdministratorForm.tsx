import { Select, TextInput } from '@mantine/core';
import { useForm, type GetInputPropsReturnType } from '@mantine/form';
import { administratorCreate, type SessionUser } from '@svc/shared';
import { FormShell } from '../components/FormShell';
import { schemaResolver } from '../forms';
import { t as translate, useT } from '../i18n';
import { useReportDirty } from '../components/DiscardGuard';
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

  return (
    <FormShell
      form={form}
      label={t('administrators.new')}
      submitLabel={t('spaces.create')}
      failTitle={t('common.notCreated')}
      save={(values) => onSubmit(toBody(values))}
    >
      <TextInput
        label={t('administrators.username')}
        required
        data-autofocus
        {...form.getInputProps('username')}
      />
      <TextInput label={t('administrators.displayName')} {...form.getInputProps('displayName')} />
      <RoleFields form={form} organizations={organizations} roles={roleOptions(actorRole)} />
    </FormShell>
  );
}

/**
 * The organization (a super administrator's choice, with `organizations`) and the role: the
 * fields creating and editing an account share.
 */
export function RoleFields({
  form,
  organizations,
  roles,
  roleHelp,
  roleFixed = false,
}: {
  form: { getInputProps: (path: 'organizationId' | 'role') => GetInputPropsReturnType };
  organizations: { value: string; label: string }[] | undefined;
  roles: { value: string; label: string }[];
  roleHelp?: string;
  roleFixed?: boolean;
}) {
  const t = useT();
  return (
    <>
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
        description={roleHelp}
        data={roles}
        allowDeselect={false}
        disabled={roleFixed}
        {...form.getInputProps('role')}
      />
    </>
  );
}
