import { Alert, Card, Code, Group, List, Loader, Stack, Text, Title } from '@mantine/core';
import { useCanEdit } from '../access';
import { heartbeat } from '../api';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { getPanelRoute } from './api';
import { PanelRouteSection } from './PanelRouteSection';
import { TerminalsSection } from './TerminalsSection';

/** What the heartbeat's `discovery` block says about the advertised address. */
function discoveryInfo(discovery: Record<string, unknown> | undefined) {
  const text = (key: string) => (typeof discovery?.[key] === 'string' ? discovery[key] : null);
  return {
    enabled: discovery?.enabled === true,
    advertised: text('advertisedUrl'),
    problems: [text('addressProblem'), text('bindError')].filter((p): p is string => p !== null),
  };
}

/** System Configuration: the advertised address, terminals heard (push), the panel route. */
export function SystemPage() {
  useDocumentTitle('System Configuration');
  const canEdit = useCanEdit();
  const beat = useApiQuery(keys.heartbeat, (signal) => heartbeat(signal), {
    refetchInterval: 15_000,
  });
  const panel = useApiQuery(keys.panel, (signal) => getPanelRoute(signal));
  const info = discoveryInfo(beat.data?.discovery);
  const warnings = [...info.problems, ...(beat.data?.warnings ?? [])];

  return (
    <>
      <Group justify="space-between">
        <Title order={1}>System Configuration</Title>
      </Group>
      {beat.data === null && beat.loading && <Loader aria-label="Loading" />}
      {beat.data !== null && (
        <Card withBorder component="section" aria-labelledby="central-title">
          <Stack gap="xs">
            <Title order={2} id="central-title">
              Central address
            </Title>
            <Text>
              Terminals are told to call{' '}
              <Code data-testid="advertised-url">{info.advertised ?? 'not known'}</Code>
              {info.enabled ? '' : ' (LAN discovery is off on this server)'}
            </Text>
            {warnings.length > 0 && (
              <Alert color="yellow" title="Warnings" data-testid="system-warnings">
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
    </>
  );
}
