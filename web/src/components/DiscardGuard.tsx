import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useT } from '../i18n';

/**
 * For a dialog holding a form: Esc, × or a click beside it ask before what was typed is thrown
 * away. The form reports whether it differs from what it started with (`setDirty`); an
 * untouched dialog closes at once.
 */
export function useDiscardGuard(close: () => void): {
  setDirty: (dirty: boolean) => void;
  requestClose: () => void;
  question: ReactNode;
} {
  const t = useT();
  const dirty = useRef(false);
  const [asking, setAsking] = useState(false);
  const setDirty = useCallback((value: boolean) => {
    dirty.current = value;
  }, []);
  const requestClose = () => {
    // After the Esc that asked has finished travelling: opened at once, the question's own Esc
    // listener (on window) would take the same key press and close it again.
    if (dirty.current) window.setTimeout(() => setAsking(true), 0);
    else close();
  };
  const question = (
    <Modal opened={asking} onClose={() => setAsking(false)} title={t('discard.title')} zIndex={300}>
      <Stack>
        <Text size="sm">{t('discard.text')}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setAsking(false)} data-autofocus>
            {t('discard.keep')}
          </Button>
          <Button
            color="red"
            onClick={() => {
              setAsking(false);
              dirty.current = false;
              close();
            }}
          >
            {t('discard.discard')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
  return { setDirty, requestClose, question };
}

/** In the form: tells the dialog's guard whether anything was typed (and nothing, once gone). */
export function useReportDirty(dirty: boolean, onDirty: ((dirty: boolean) => void) | undefined) {
  useEffect(() => onDirty?.(dirty), [dirty, onDirty]);
  useEffect(() => () => onDirty?.(false), [onDirty]);
}
