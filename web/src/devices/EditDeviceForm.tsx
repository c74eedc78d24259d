import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useReportDirty } from '../components/DiscardGuard';
import { useForm, type GetInputPropsReturnType } from '@mantine/form';
import { deviceUpdate, type DeviceOut } from '@svc/shared';
import { useState } from 'react';
import { FormShell } from '../components/FormShell';
import { useTheirChanges } from '../conflict';
import { schemaResolver } from '../forms';
import { t, useT } from '../i18n';
import { getDevice, updateDevice } from './api';

interface Values {
  name: string;
  baseUrl: string;
  model: string;
}

const valuesOf = (d: DeviceOut): Values => ({ name: d.name, baseUrl: d.baseUrl, model: d.model });
const labels = () => ({
  name: t('devices.name'),
  baseUrl: t('devices.address'),
  model: t('devices.model'),
});

/** Name, address and model: the fields registering and editing a device share. */
export function DeviceFields({
  form,
  addressHelp,
  first = false,
}: {
  form: { getInputProps: (path: keyof Values) => GetInputPropsReturnType };
  addressHelp: string;
  /** The name is the form's first field (it takes the focus). */
  first?: boolean;
}) {
  const t = useT();
  return (
    <>
      <TextInput
        label={t('devices.name')}
        required
        data-autofocus={first || undefined}
        {...form.getInputProps('name')}
      />
      <TextInput
        label={t('devices.address')}
        description={addressHelp}
        required
        {...form.getInputProps('baseUrl')}
      />
      <TextInput label={t('devices.model')} {...form.getInputProps('model')} />
    </>
  );
}

/**
 * A device's name, address and model (a device whose address changed keeps failing its tasks
 * until it is fixed here), checked with the shared `deviceUpdate` schema and saved over the
 * state it was opened with (If-Match).
 */
export function EditDeviceForm({
  device,
  onSaved,
  onDirty,
}: {
  device: DeviceOut;
  onSaved: (device: DeviceOut) => Promise<void>;
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf(device),
    validate: schemaResolver<Values>(deviceUpdate),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const conflict = useTheirChanges(form, device, {
    what: t('conflict.what.device'),
    valuesOf,
    labels,
    reread: (base) => getDevice(base.id),
  });
  const save = async (values: Values) => {
    const { base } = conflict;
    const body = {
      name: values.name.trim(),
      baseUrl: values.baseUrl.trim(),
      model: values.model.trim(),
    };
    await onSaved(await updateDevice(base.id, body, base.etag));
  };

  return (
    <FormShell form={form} conflict={conflict} label={t('devices.editForm')} save={save}>
      <Text size="sm">{t('devices.snFixed', { sn: device.sn })}</Text>
      <DeviceFields form={form} addressHelp={t('devices.addressHelpEdit')} first />
    </FormShell>
  );
}

/** Removing a device: said what it does before it is done. */
export function RemoveDevice({
  device,
  onRemove,
  onCancel,
}: {
  device: DeviceOut;
  onRemove: () => Promise<void>;
  onCancel: () => void;
}) {
  const t = useT();
  const [removing, setRemoving] = useState(false);
  return (
    <Stack>
      <Text size="sm">{t('devices.removeText', { name: device.name, sn: device.sn })}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {t('common.cancel')}
        </Button>
        <Button
          color="red"
          loading={removing}
          onClick={() => {
            setRemoving(true);
            void onRemove().finally(() => setRemoving(false));
          }}
        >
          {t('devices.remove')}
        </Button>
      </Group>
    </Stack>
  );
}
