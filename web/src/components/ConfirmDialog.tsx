import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useT } from '../i18n';

/**
 * Asks before an action that cannot be taken back or cuts something off, naming what follows.
 * Cancel, Esc and × leave everything as it was.
 */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  opened: boolean;
  title: string;
  /** The consequence, in plain words. */
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onCancel: () => void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  return (
    <Modal opened={opened} onClose={onCancel} title={title}>
      <Stack>
        <Text size="sm">{children}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={busy}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={busy}
            onClick={() => {
              setBusy(true);
              void onConfirm().finally(() => setBusy(false));
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
