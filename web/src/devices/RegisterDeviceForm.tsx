import { Select, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { deviceCreate, type DeviceCreate, type SpaceOut } from '@svc/shared';
import { FormShell } from '../components/FormShell';
import { useReportDirty } from '../components/DiscardGuard';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { spaceOptions } from '../spaces/tree';
import { DeviceFields } from './EditDeviceForm';

interface Values {
  sn: string;
  name: string;
  baseUrl: string;
  model: string;
  spaceId: string | null;
}

function toBody(values: Values): DeviceCreate {
  return {
    sn: values.sn.trim(),
    name: values.name.trim(),
    baseUrl: values.baseUrl.trim(),
    ...(values.model.trim() !== '' && { model: values.model.trim() }),
    spaceId: values.spaceId,
  };
}

/** Serial number, name, address and space, checked with the shared `deviceCreate` schema. */
export function RegisterDeviceForm({
  spaces,
  onSubmit,
  onDirty,
}: {
  spaces: readonly SpaceOut[];
  onSubmit: (body: DeviceCreate) => Promise<void>;
  /** Whether anything was typed, for the dialog's question on closing. */
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { sn: '', name: '', baseUrl: 'http://', model: '', spaceId: null },
    // Checked as sent: " DEV-1 " pasted with spaces around is the serial DEV-1.
    validate: schemaResolver<Values>(deviceCreate, toBody),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);

  return (
    <FormShell
      form={form}
      label={t('devices.register')}
      submitLabel={t('devices.registerSubmit')}
      failTitle={t('devices.notRegistered')}
      save={(values) => onSubmit(toBody(values))}
    >
      <TextInput
        label={t('devices.col.sn')}
        required
        data-autofocus
        {...form.getInputProps('sn')}
      />
      <DeviceFields form={form} addressHelp={t('devices.addressHelp')} />
      <Select
        label={t('devices.space')}
        description={t('devices.spaceHelp')}
        placeholder={t('devices.noSpaceYet')}
        data={spaceOptions(spaces)}
        searchable
        clearable
        {...form.getInputProps('spaceId')}
      />
    </FormShell>
  );
}
