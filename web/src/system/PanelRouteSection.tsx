import {
  Alert,
  Button,
  Group,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { panelRoute, type PanelRoute } from '@svc/shared';
import { useState } from 'react';
import { ApiError } from '../api';
import { schemaResolver } from '../forms';
import { describeError } from '../messages';
import { keys, queryClient } from '../query';
import { setPanelRoute, testPanelRoute } from './api';

/** Where recognition results go: the display's receiver (local) or a cloud panel. */
export function PanelRouteSection({ route, canEdit }: { route: PanelRoute; canEdit: boolean }) {
  const form = useForm<PanelRoute>({
    mode: 'controlled',
    initialValues: route,
    validate: schemaResolver<PanelRoute>(panelRoute),
    validateInputOnChange: true,
  });
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);

  const test = async () => {
    setTesting(true);
    setMessage(null);
    try {
      const result = await testPanelRoute();
      setMessage(
        result.ok
          ? { ok: true, text: `The panel at ${result.url} answered in ${result.ms} ms.` }
          : { ok: false, text: `Test failed: ${result.reason}` },
      );
    } catch (error) {
      setMessage({ ok: false, text: describeError(error, 'other') });
    } finally {
      setTesting(false);
    }
  };

  const save = form.onSubmit(async (values) => {
    setSaving(true);
    setMessage(null);
    try {
      const saved = await setPanelRoute({ mode: values.mode, url: values.url.trim() });
      form.setValues(saved);
      form.resetDirty(saved);
      await queryClient.invalidateQueries({ queryKey: keys.panel });
      setMessage({ ok: true, text: 'Panel route saved.' });
    } catch (error) {
      if (error instanceof ApiError) form.setErrors(error.fields);
      setMessage({ ok: false, text: describeError(error, 'other') });
    } finally {
      setSaving(false);
    }
  });

  return (
    <Stack component="section" aria-labelledby="panel-title">
      <Title order={2} id="panel-title">
        Panel route
      </Title>
      <Text size="sm" c="dimmed">
        Recognition results are sent here. A display terminal’s receiver is at its address and port
        followed by /api/recognition, for example http://192.168.1.60:8181/api/recognition.
      </Text>
      <form onSubmit={(e) => void save(e)} aria-label="Panel route" noValidate>
        <Stack maw={560}>
          <SegmentedControl
            aria-label="Mode"
            data={[
              { value: 'local', label: 'Local display' },
              { value: 'cloud', label: 'Cloud panel' },
            ]}
            disabled={!canEdit}
            {...form.getInputProps('mode')}
          />
          <TextInput
            label="Panel URL"
            description="Empty: results are recorded but not sent"
            readOnly={!canEdit}
            {...form.getInputProps('url')}
          />
          {canEdit && (
            <Group>
              <Button type="submit" loading={saving}>
                Save panel route
              </Button>
              <Button
                variant="default"
                loading={testing}
                disabled={form.isDirty()}
                title={form.isDirty() ? 'Save first: the saved route is tested' : undefined}
                onClick={() => void test()}
              >
                Test connection
              </Button>
            </Group>
          )}
          {message !== null && (
            <Alert color={message.ok ? 'green' : 'red'} role="status" data-testid="panel-message">
              {message.text}
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}
