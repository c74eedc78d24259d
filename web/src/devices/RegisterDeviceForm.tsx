import { Alert, Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { deviceCreate, type DeviceCreate, type SpaceOut } from '@svc/shared';
import { schemaResolver } from '../forms';
import { useState } from 'react';
import { ApiError } from '../api';
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
}: {
  spaces: readonly SpaceOut[];
  onSubmit: (body: DeviceCreate) => Promise<void>;
}) {
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { sn: '', name: '', baseUrl: 'http://', model: '', spaceId: null },
    validate: schemaResolver<Values>(deviceCreate),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(async (values) => {
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
  });

  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label="Register device">
      <Stack>
        {problem !== null && (
          <Alert color="red" title="Not registered" role="alert">
            {problem}
          </Alert>
        )}
        <TextInput label="Serial number" required data-autofocus {...form.getInputProps('sn')} />
        <TextInput label="Name" required {...form.getInputProps('name')} />
        <TextInput
          label="Address"
          description="The device’s own HTTP address, e.g. http://192.168.1.50:8080"
          required
          {...form.getInputProps('baseUrl')}
        />
        <TextInput label="Model" {...form.getInputProps('model')} />
        <Select
          label="Space"
          description="People of this space (and the spaces inside it) go to the device"
          placeholder="No space yet"
          data={spaceOptions(spaces)}
          searchable
          clearable
          {...form.getInputProps('spaceId')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Register
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
