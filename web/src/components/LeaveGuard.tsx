import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useBlocker } from '@tanstack/react-router';
import { useT } from '../i18n';

/**
 * Asks before a half-filled form is left: a menu link or Back asks in the page, a reload or a
 * closed tab asks through the browser's own question.
 */
export function LeaveGuard({
  when,
  words,
}: {
  when: () => boolean;
  /** The question's texts when something else than a form is lost (a secret shown once). */
  words?: { title: string; text: string; stay: string; leave: string };
}) {
  const t = useT();
  const say = words ?? {
    title: t('leave.title'),
    text: t('leave.text'),
    stay: t('leave.stay'),
    leave: t('leave.leave'),
  };
  const blocker = useBlocker({
    shouldBlockFn: when,
    enableBeforeUnload: when,
    withResolver: true,
  });
  return (
    <Modal
      opened={blocker.status === 'blocked'}
      onClose={() => blocker.reset?.()}
      title={say.title}
      // Above any dialog open on the page (a secret shown once asks this too).
      zIndex={400}
    >
      <Stack>
        <Text size="sm">{say.text}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => blocker.reset?.()}>
            {say.stay}
          </Button>
          <Button color="red" onClick={() => blocker.proceed?.()}>
            {say.leave}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
