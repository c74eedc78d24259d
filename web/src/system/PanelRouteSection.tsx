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
import { panelFailureOf, panelRoute, type PanelRoute, type PanelTestResult } from '@svc/shared';
import { useId, useState } from 'react';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { keys, queryClient } from '../query';
import { said, saidFailure, type Said } from '../said';
import { useFormSubmit } from '../useFormSubmit';
import { setPanelRoute, testPanelRoute } from './api';

/**
 * In place of the route for everyone but a superadmin: one route serves every organization, so
 * an organization's administrator neither sees nor changes it (the server answers 403).
 */
export function PanelRouteShared() {
  const t = useT();
  return (
    <Stack component="section" aria-labelledby="panel-title">
      <Title order={2} id="panel-title">
        {t('panelRoute.title')}
      </Title>
      <Text data-testid="panel-superadmin-only">{t('panelRoute.superadminOnly')}</Text>
    </Stack>
  );
}

/** Where recognition results go: the display's receiver (local) or a cloud panel. */
export function PanelRouteSection({ route, canEdit }: { route: PanelRoute; canEdit: boolean }) {
  const t = useT();
  const form = useForm<PanelRoute>({
    mode: 'controlled',
    initialValues: route,
    validate: schemaResolver<PanelRoute>(panelRoute),
    validateInputOnChange: true,
  });
  const submit = useFormSubmit(form);
  const [testing, setTesting] = useState(false);
  const { message } = submit;
  // Test connection tries the saved route: while the one typed is not saved it waits, and says
  // why on screen (a hover title alone reaches neither a touch screen nor most readers).
  const unsaved = form.isDirty();
  const reasonId = useId();

  const test = async () => {
    setTesting(true);
    submit.clear();
    try {
      const result = await testPanelRoute();
      submit.show(
        result.ok
          ? { ok: true, text: said('panel.answered', { url: result.url, ms: result.ms }) }
          : { ok: false, text: said('panel.testFailed', { reason: testFailure(result) }) },
      );
    } catch (error) {
      submit.show({ ok: false, text: saidFailure(error) });
    } finally {
      setTesting(false);
    }
  };

  const save = submit.handler(async (values) => {
    const saved = await setPanelRoute({ mode: values.mode, url: values.url.trim() });
    form.setValues(saved);
    form.resetDirty(saved);
    await queryClient.invalidateQueries({ queryKey: keys.panel });
    return said('panel.saved');
  });

  return (
    <Stack component="section" aria-labelledby="panel-title">
      <Title order={2} id="panel-title">
        {t('settings.panel.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('panel.help')}
      </Text>
      <form onSubmit={save} aria-label={t('settings.panel.title')} noValidate>
        <Stack maw={560}>
          <SegmentedControl
            aria-label={t('panel.mode')}
            data={[
              { value: 'local', label: t('panel.local') },
              { value: 'cloud', label: t('panel.cloud') },
            ]}
            disabled={!canEdit}
            {...form.getInputProps('mode')}
          />
          <TextInput
            label={t('panel.url')}
            description={t('panel.urlHelp')}
            readOnly={!canEdit}
            {...form.getInputProps('url')}
          />
          {canEdit && (
            <Group>
              <Button type="submit" loading={submit.busy}>
                {t('panel.save')}
              </Button>
              <Button
                variant="default"
                loading={testing}
                disabled={unsaved}
                aria-describedby={unsaved ? reasonId : undefined}
                onClick={() => void test()}
              >
                {t('panel.test')}
              </Button>
            </Group>
          )}
          {canEdit && unsaved && (
            <Text size="sm" c="dimmed" id={reasonId} data-testid="panel-test-reason">
              {t('panel.saveFirst')}
            </Text>
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

/**
 * Why a test event did not arrive, in the site's language: the server says it in English, in
 * the sentences the panel outbox uses too, which read back as their code and values. A sentence
 * of no known shape is shown as the server said it rather than as a vaguer one of ours.
 */
function testFailure(result: Extract<PanelTestResult, { ok: false }>): Said | string {
  if (result.url === '') return said('panel.noUrl');
  const failure = panelFailureOf(result.reason);
  return failure.code === 'panel_failed'
    ? result.reason
    : said(`delivery.failure.${failure.code}`, failure.params);
}
