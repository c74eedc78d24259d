import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useBlocker } from '@tanstack/react-router';
import { useT } from '../i18n';

/**
 * Asks before a half-filled form is left: a menu link or Back asks in the page, a reload or a
 * closed tab asks through the browser's own question.
 */
export function LeaveGuard({ when }: { when: () => boolean }) {
  const t = useT();
  const blocker = useBlocker({
    shouldBlockFn: when,
    enableBeforeUnload: when,
    withResolver: true,
  });
  return (
    <Modal
      opened={blocker.status === 'blocked'}
      onClose={() => blocker.reset?.()}
      title={t('leave.title')}
    >
      <Stack>
        <Text size="sm">{t('leave.text')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => blocker.reset?.()}>
            {t('leave.stay')}
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()}>
            {t('leave.leave')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
