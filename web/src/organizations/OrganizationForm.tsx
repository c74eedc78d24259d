import { TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { organizationCreate, type OrganizationCreate } from '@svc/shared';
import { FormShell } from '../components/FormShell';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';

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

  return (
    <FormShell
      form={form}
      label={t('administrators.organization')}
      submitLabel={submitLabel}
      save={(values) => onSubmit({ name: values.name.trim() })}
    >
      <TextInput
        label={t('devices.name')}
        required
        data-autofocus
        {...form.getInputProps('name')}
      />
    </FormShell>
  );
}
