import { Alert, Card, Code, Group, List, Loader, Stack, Text, Title } from '@mantine/core';
import { serviceWarning } from '@svc/shared';
import { useCanEdit, useIsSuperadmin } from '../access';
import { useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { warningText, warningTexts } from '../i18n/warnings';
import { heartbeat } from '../api';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { getPanelRoute, listKnownTerminals } from './api';
import { centralState } from './central';
import { PanelRouteSection, PanelRouteShared } from './PanelRouteSection';
import { TerminalsSection } from './TerminalsSection';

/** What the heartbeat's `discovery` block says about the advertised address. */
function discoveryInfo(discovery: Record<string, unknown> | undefined) {
  const text = (key: string) => (typeof discovery?.[key] === 'string' ? discovery[key] : null);
  // A problem in the site's language from its code (`…Detail`), else as the service said it.
  const problem = (key: string) => {
    const detail = serviceWarning.safeParse(discovery?.[`${key}Detail`]);
    return detail.success ? warningText(detail.data) : text(key);
  };
  return {
    enabled: discovery?.enabled === true,
    advertised: text('advertisedUrl'),
    problems: [problem('addressProblem'), problem('bindError')].filter(
      (p): p is string => p !== null,
    ),
  };
}

/** System Configuration: the advertised address, terminals heard (push), the panel route. */
export function SystemPage() {
  const t = useT();
  useDocumentTitle(t('nav.system'));
  const canEdit = useCanEdit();
  const superadmin = useIsSuperadmin();
  const beat = useApiQuery(keys.heartbeat, (signal) => heartbeat(signal), {
    refetchInterval: 15_000,
  });
  const panel = useApiQuery(keys.panel, (signal) => getPanelRoute(signal), {
    enabled: superadmin,
  });
  const info = discoveryInfo(beat.data?.discovery);
  // The same query (and state) as the terminals' table below.
  const known = useApiQuery([...keys.discovery, 'known'], (signal) => listKnownTerminals(signal));
  const central = centralState(known.data?.items ?? []);
  const warnings = [...info.problems, ...(beat.data ? warningTexts(beat.data) : [])];

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>{t('nav.system')}</Title>
      </Group>
      {beat.data === null && beat.loading && (
        <Loader role="status" aria-label={t('common.loading')} />
      )}
      {beat.data !== null && (
        <Card withBorder component="section" aria-labelledby="central-title">
          <Stack gap="xs">
            <Title order={2} id="central-title">
              {t('system.central')}
            </Title>
            <Text>
              {info.advertised !== null ? (
                <Tx
                  k={info.enabled ? 'system.toldToCall' : 'system.toldToCallNoDiscovery'}
                  values={{ url: info.advertised }}
                  components={{ code: <Code data-testid="advertised-url" /> }}
                />
              ) : central.announced.length > 0 ? (
                <Tx
                  k="system.perNetworkPushed"
                  values={{ urls: central.announced.join(t('conflict.listSeparator')) }}
                  components={{ code: <Code data-testid="advertised-url" /> }}
                />
              ) : (
                t('system.perNetwork')
              )}
            </Text>
            <Text size="sm" data-testid="central-state">
              {central.total === 0
                ? t('system.centralNoTerminals')
                : t(central.done ? 'system.centralDone' : 'system.centralPartly', {
                    checkedIn: central.checkedIn,
                    total: central.total,
                  })}
            </Text>
            {warnings.length > 0 && (
              <Alert color="yellow" title={t('status.warnings')} data-testid="system-warnings">
                <List size="sm">
                  {warnings.map((w) => (
                    <List.Item key={w}>{w}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
          </Stack>
        </Card>
      )}
      {beat.data !== null && <TerminalsSection advertised={info.advertised} canEdit={canEdit} />}
      {panel.error !== null && <Alert color="red">{panel.error}</Alert>}
      {panel.data !== null && <PanelRouteSection route={panel.data} canEdit={canEdit} />}
      {!superadmin && <PanelRouteShared />}
    </>
  );
}
