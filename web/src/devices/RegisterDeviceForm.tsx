import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { deviceCreate, type DeviceCreate, type SpaceOut } from '@svc/shared';
import { schemaResolver } from '../forms';
import { useState } from 'react';
import { ApiError } from '../api';
import { useT } from '../i18n';
import { useReportDirty } from '../components/DiscardGuard';
import { describeError } from '../messages';
import { spaceOptions } from '../spaces/tree';

interface Values {
  sn: string;
  name: string;
  baseUrl: string;
  model: string;
  spaceId: string | null;
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
    validate: schemaResolver<Values>(deviceCreate),
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
        await onSubmit({
          sn: values.sn.trim(),
          name: values.name.trim(),
          baseUrl: values.baseUrl.trim(),
          ...(values.model.trim() !== '' && { model: values.model.trim() }),
          spaceId: values.spaceId,
        });
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
    <form onSubmit={(event) => void submit(event)} noValidate aria-label={t('devices.register')}>
      <Stack>
        {problem !== null && (
          <Alert color="red" title={t('devices.notRegistered')} role="alert">
            {problem}
          </Alert>
        )}
        <TextInput
          label={t('devices.col.sn')}
          required
          data-autofocus
          {...form.getInputProps('sn')}
        />
        <TextInput label={t('devices.name')} required {...form.getInputProps('name')} />
        <TextInput
          label={t('devices.address')}
          description={t('devices.addressHelp')}
          required
          {...form.getInputProps('baseUrl')}
        />
        <TextInput label={t('devices.model')} {...form.getInputProps('model')} />
        <Select
          label={t('devices.space')}
          description={t('devices.spaceHelp')}
          placeholder={t('devices.noSpaceYet')}
          data={spaceOptions(spaces)}
          searchable
          clearable
          {...form.getInputProps('spaceId')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('devices.registerSubmit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
