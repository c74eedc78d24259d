import { Alert, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { deviceUpdate, type DeviceOut } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import {
  isEditConflict,
  mergeTheirChanges,
  TheirChangesNotice,
  type TheirChange,
} from '../conflict';
import { schemaResolver } from '../forms';
import { t, useT } from '../i18n';
import { describeError } from '../messages';
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

/**
 * A device's name, address and model (a device whose address changed keeps failing its tasks
 * until it is fixed here), checked with the shared `deviceUpdate` schema and saved over the
 * state it was opened with (If-Match).
 */
export function EditDeviceForm({
  device,
  onSaved,
}: {
  device: DeviceOut;
  onSaved: (device: DeviceOut) => Promise<void>;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf(device),
    validate: schemaResolver<Values>(deviceUpdate),
    validateInputOnChange: true,
  });
  const [base, setBase] = useState(device);
  const [problem, setProblem] = useState<string | null>(null);
  const [theirChanges, setTheirChanges] = useState<TheirChange[] | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      setProblem(null);
      setTheirChanges(null);
      const body = {
        name: values.name.trim(),
        baseUrl: values.baseUrl.trim(),
        model: values.model.trim(),
      };
      try {
        await onSaved(await updateDevice(base.id, body, base.etag));
      } catch (error) {
        if (isEditConflict(error)) {
          const current = await getDevice(base.id);
          const merged = mergeTheirChanges(valuesOf(base), valuesOf(current), values, labels());
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
    // Refused by the form's own check: the last outcome no longer stands (old banners clear).
    () => setProblem(null),
  );

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label={t('devices.editForm')}>
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('common.notSaved')} role="alert">
            {problem}
          </Alert>
        )}
        {theirChanges !== null && (
          <TheirChangesNotice what={t('conflict.what.device')} changes={theirChanges} />
        )}
        <Text size="sm">{t('devices.snFixed', { sn: device.sn })}</Text>
        <TextInput
          label={t('devices.name')}
          required
          data-autofocus
          {...form.getInputProps('name')}
        />
        <TextInput
          label={t('devices.address')}
          description={t('devices.addressHelpEdit')}
          required
          {...form.getInputProps('baseUrl')}
        />
        <TextInput label={t('devices.model')} {...form.getInputProps('model')} />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
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
