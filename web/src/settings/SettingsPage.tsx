import { Alert, Button, Group, NumberInput, Stack, Table, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { retentionSetting, type SettingsOut } from '@svc/shared';
import { useCanEdit } from '../access';
import { schemaResolver } from '../forms';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { getPanelRoute } from '../system/api';
import { useDocumentTitle } from '../useDocumentTitle';
import { useFormSubmit } from '../useFormSubmit';
import { getSettings, setRetention } from './api';

/** The number box holds '' while empty: the shared schema then says a number is needed. */
interface RetentionForm {
  days: number | string;
}

/**
 * Runtime settings (saved in the database, applied without a restart) and the session limits,
 * which are fixed in the server and shown so nobody has to guess why they were signed out.
 */
export function SettingsPage() {
  useDocumentTitle('Settings');
  const canEdit = useCanEdit();
  const settings = useApiQuery(keys.settings, (signal) => getSettings(signal));
  const panel = useApiQuery(keys.panel, (signal) => getPanelRoute(signal));

  return (
    <>
      <Group>
        <Title order={1}>Settings</Title>
      </Group>
      {settings.error !== null && (
        <Alert color="red" title="The settings could not be loaded">
          {settings.error}
        </Alert>
      )}
      {settings.data !== null && (
        <RetentionSection days={settings.data.eventRetentionDays} canEdit={canEdit} />
      )}
      <Stack component="section" aria-labelledby="settings-panel-title">
        <Title order={2} id="settings-panel-title">
          Panel route
        </Title>
        <Text>
          Recognition results go to{' '}
          <Text span fw={600} data-testid="settings-panel-url">
            {panel.data === null ? '…' : panel.data.url === '' ? 'nowhere yet' : panel.data.url}
          </Text>
          . It is changed and tested on <Link to="/system">System Configuration</Link>.
        </Text>
      </Stack>
      {settings.data !== null && <SessionSection sessions={settings.data.sessions} />}
    </>
  );
}

function RetentionSection({ days, canEdit }: { days: number; canEdit: boolean }) {
  const form = useForm<RetentionForm>({
    mode: 'controlled',
    initialValues: { days },
    validate: schemaResolver<RetentionForm>(retentionSetting),
    validateInputOnChange: true,
  });
  const submit = useFormSubmit(form);
  const save = form.onSubmit((values) =>
    submit.run(
      async () => {
        const saved = await setRetention({ days: Number(values.days) });
        form.setValues(saved);
        form.resetDirty(saved);
        return `Events are now kept for ${saved.days} days.`;
      },
      () => queryClient.invalidateQueries({ queryKey: keys.settings }),
    ),
  );

  return (
    <Stack component="section" aria-labelledby="settings-retention-title">
      <Title order={2} id="settings-retention-title">
        Event retention
      </Title>
      <form onSubmit={(e) => void save(e)} aria-label="Event retention" noValidate>
        <Stack maw={560}>
          <NumberInput
            label="Keep recognition events for (days)"
            description="Older events and their snapshots are deleted once a day"
            allowDecimal={false}
            allowNegative={false}
            readOnly={!canEdit}
            {...form.getInputProps('days')}
          />
          {canEdit && (
            <Group>
              <Button type="submit" loading={submit.busy} disabled={!form.isDirty()}>
                Save retention
              </Button>
            </Group>
          )}
          {submit.message !== null && (
            <Alert
              color={submit.message.ok ? 'green' : 'red'}
              role="status"
              data-testid="settings-message"
            >
              {submit.message.text}
            </Alert>
          )}
        </Stack>
      </form>
    </Stack>
  );
}

function duration(minutes: number): string {
  if (minutes % 60 !== 0) return `${minutes} minutes`;
  const hours = minutes / 60;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

function SessionSection({ sessions }: { sessions: SettingsOut['sessions'] }) {
  return (
    <Stack component="section" aria-labelledby="settings-sessions-title">
      <Title order={2} id="settings-sessions-title">
        Sessions
      </Title>
      <Text size="sm" c="dimmed">
        Fixed by the server; shown here for reference.
      </Text>
      <Table aria-label="Session timeouts" maw={560} data-testid="session-timeouts">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th scope="row">Signed out after no activity for</Table.Th>
            <Table.Td>{duration(sessions.idleTimeoutMinutes)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th scope="row">Signed out after signing in, at the latest</Table.Th>
            <Table.Td>{duration(sessions.absoluteTimeoutMinutes)}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
