import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { retentionSetting, type SettingsOut } from '@svc/shared';
import { useCanEdit, useIsSuperadmin } from '../access';
import { t, useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { schemaResolver } from '../forms';
import { Link } from '../nav';
import { keys, queryClient, useApiQuery } from '../query';
import { getPanelRoute } from '../system/api';
import { useDocumentTitle } from '../useDocumentTitle';
import { said } from '../said';
import { useFormSubmit } from '../useFormSubmit';
import { getSettings, setRetention } from './api';
import { TimeZoneSection } from './TimeZoneSection';

/** The box's text as typed: nothing in it is rewritten behind the administrator's back. */
interface RetentionForm {
  days: string;
}

/**
 * The whole number of days a text says, or null: full-width digits (３０) count as the digits
 * they are; a sign, a decimal point or anything else is refused, never dropped.
 */
function retentionDaysOf(text: string): number | null {
  const plain = text.normalize('NFKC').trim();
  return /^\d{1,9}$/.test(plain) ? Number(plain) : null;
}

const retentionRule = schemaResolver<{ days: number }>(retentionSetting);
function validateRetention(values: RetentionForm) {
  const days = retentionDaysOf(values.days);
  if (days === null) return { days: t('settings.retention.wholeNumber') };
  return retentionRule({ days });
}

/**
 * Runtime settings (saved in the database, applied without a restart) and the session limits,
 * which are fixed in the server and shown so nobody has to guess why they were signed out.
 */
export function SettingsPage() {
  const t = useT();
  useDocumentTitle(t('nav.settings'));
  const canEdit = useCanEdit();
  const settings = useApiQuery(keys.settings, (signal) => getSettings(signal));
  const superadmin = useIsSuperadmin();
  const panel = useApiQuery(keys.panel, (signal) => getPanelRoute(signal), {
    enabled: superadmin,
  });

  return (
    <>
      <Group>
        <Title order={1}>{t('nav.settings')}</Title>
      </Group>
      {settings.error !== null && (
        <Alert color="red" title={t('settings.notLoaded')}>
          {settings.error}
        </Alert>
      )}
      {settings.data !== null && (
        <RetentionSection days={settings.data.eventRetentionDays} canEdit={canEdit} />
      )}
      {settings.data !== null && <TimeZoneSection zone={settings.data.timeZone} />}
      <Stack component="section" aria-labelledby="settings-panel-title">
        <Title order={2} id="settings-panel-title">
          {t('settings.panel.title')}
        </Title>
        {superadmin && panel.data !== null && panel.data.url === '' ? (
          // "Not configured" is a sentence of its own, not a value dropped into "goes to …".
          <Text data-testid="settings-panel-none">
            <Tx k="settings.panel.notConfigured" components={{ a: <Link to="/system" /> }} />
          </Text>
        ) : superadmin ? (
          <Text>
            <Tx
              k="settings.panel.goesTo"
              values={{ url: panel.data === null ? '…' : panel.data.url }}
              components={{
                url: <Text span fw={600} data-testid="settings-panel-url" />,
                a: <Link to="/system" />,
              }}
            />
          </Text>
        ) : (
          <Text data-testid="panel-superadmin-only">{t('panelRoute.superadminOnly')}</Text>
        )}
      </Stack>
      {settings.data !== null && <SessionSection sessions={settings.data.sessions} />}
    </>
  );
}

function RetentionSection({ days, canEdit }: { days: number; canEdit: boolean }) {
  const t = useT();
  const form = useForm<RetentionForm>({
    mode: 'controlled',
    initialValues: { days: String(days) },
    validate: validateRetention,
    validateInputOnChange: true,
  });
  const submit = useFormSubmit(form);
  const save = submit.handler(
    async (values) => {
      const saved = await setRetention({ days: retentionDaysOf(values.days) ?? 0 });
      const shown = { days: String(saved.days) };
      form.setValues(shown);
      form.resetDirty(shown);
      return said('settings.retention.saved', { days: saved.days });
    },
    () => queryClient.invalidateQueries({ queryKey: keys.settings }),
  );

  return (
    <Stack component="section" aria-labelledby="settings-retention-title">
      <Title order={2} id="settings-retention-title">
        {t('settings.retention.title')}
      </Title>
      <form onSubmit={save} aria-label={t('settings.retention.title')} noValidate>
        <Stack maw={560}>
          <TextInput
            label={t('settings.retention.label')}
            description={t('settings.retention.help')}
            inputMode="numeric"
            readOnly={!canEdit}
            {...form.getInputProps('days')}
          />
          {canEdit && (
            <Group>
              <Button type="submit" loading={submit.busy} disabled={!form.isDirty()}>
                {t('settings.retention.save')}
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
  if (minutes % 60 !== 0) return t('settings.sessions.minutes', { count: minutes });
  return t('settings.sessions.hours', { count: minutes / 60 });
}

function SessionSection({ sessions }: { sessions: SettingsOut['sessions'] }) {
  const t = useT();
  return (
    <Stack component="section" aria-labelledby="settings-sessions-title">
      <Title order={2} id="settings-sessions-title">
        {t('settings.sessions.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('settings.sessions.fixed')}
      </Text>
      <Table aria-label={t('settings.sessions.table')} maw={560} data-testid="session-timeouts">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th scope="row">{t('settings.sessions.idle')}</Table.Th>
            <Table.Td>{duration(sessions.idleTimeoutMinutes)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th scope="row">{t('settings.sessions.absolute')}</Table.Th>
            <Table.Td>{duration(sessions.absoluteTimeoutMinutes)}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
