import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useBlocker, useRouter } from '@tanstack/react-router';
import { useEffect } from 'react';
import { useT } from '../i18n';

/**
 * Asks before a half-filled form is left: a menu link or Back asks in the page, a reload or a
 * closed tab asks through the browser's own question. `when` is asked on each render of the
 * page (a form's values re-render it).
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
  const router = useRouter();
  const guarding = when();
  useEffect(() => {
    // On a page opened straight by its address, Back leaves the site, and a browser asks
    // before that only sometimes (not at all without a recent click on the page): an entry of
    // the same page, once there is something to lose, makes Back stay in the site, where the
    // question below asks.
    if (guarding && !router.history.canGoBack()) {
      router.history.push(router.history.location.href, {}, { ignoreBlocker: true });
    }
  }, [guarding, router]);
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
