import { Alert, Badge, Card, Group, List, Progress, Text, ThemeIcon } from '@mantine/core';
import { useIsSuperadmin } from '../access';
import { useT } from '../i18n';
import { Link } from '../nav';
import { useApiQuery } from '../query';
import { loadChecklist } from './checklist';

const POLL_MS = 10_000;

/**
 * The first session on the dashboard: every step in order, ticked from the service's state,
 * each linking to its page; the first open one says what to do.
 */
export function FirstSessionChecklist() {
  const t = useT();
  const superadmin = useIsSuperadmin();
  const steps = useApiQuery(
    ['checklist', superadmin],
    (signal) => loadChecklist(superadmin, signal),
    {
      refetchInterval: POLL_MS,
    },
  );
  if (steps.error !== null) {
    return (
      <Alert color="red" title={t('checklist.notLoaded')}>
        {steps.error}
      </Alert>
    );
  }
  if (steps.data === null) return null;
  const done = steps.data.filter((s) => s.done).length;
  const next = steps.data.find((s) => !s.done);
  return (
    <Card withBorder radius="md" component="section" aria-labelledby="first-session-title">
      <Group justify="space-between" mb="xs">
        <Text id="first-session-title" fw={700} component="h2" m={0} size="md">
          {t('checklist.title')}
        </Text>
        <Text size="sm" data-testid="checklist-progress">
          {t('checklist.progress', { done, total: steps.data.length })}
        </Text>
      </Group>
      <Progress value={(done / steps.data.length) * 100} mb="sm" aria-hidden />
      <List spacing={4} listStyleType="none" aria-label={t('checklist.steps')}>
        {steps.data.map((step) => (
          <List.Item
            key={step.id}
            data-testid="checklist-step"
            data-done={step.done}
            icon={
              <ThemeIcon size="sm" radius="xl" color={step.done ? 'green' : 'gray'} variant="light">
                <span aria-hidden>{step.done ? '✓' : '·'}</span>
              </ThemeIcon>
            }
          >
            <Group gap="xs" wrap="wrap">
              <Link to={step.to}>{t(`checklist.${step.id}.label`)}</Link>
              <Badge size="sm" variant="light" color={step.done ? 'green' : 'gray'}>
                {step.done ? t('checklist.done') : t('checklist.toDo')}
              </Badge>
              {step === next && (
                <Text size="sm" c="dimmed">
                  {t('checklist.next', { hint: t(`checklist.${step.id}.hint`) })}
                </Text>
              )}
            </Group>
          </List.Item>
        ))}
      </List>
    </Card>
  );
}
