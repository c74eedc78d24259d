import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { useId, useRef, useState, type ReactNode, type RefObject } from 'react';
import { copyText, type CopyOutcome } from '../clipboard';
import { useT } from '../i18n';
import { wrappingAlert } from './badgeStyles';
import { LeaveGuard } from './LeaveGuard';

/**
 * A secret shown only now (a device key, a one-time password), in a dialog that closes only
 * through "I have stored it": not on Esc, ×, or a click beside it, where the secret would be
 * gone for good by accident. Leaving the page while it is shown (a menu link, Back, a reload, a
 * closed tab) asks first too, through the LeaveGuard (Back too on a page opened by its address).
 */
export function SecretShownOnce(props: {
  opened: boolean;
  title: string;
  /** What the secret is, e.g. "Device key". */
  label: string;
  secret: string;
  copyLabel: string;
  storedLabel: string;
  testId: string;
  /** What to do with it, above the secret. */
  children: ReactNode;
  onStored: () => void;
}) {
  const { opened, title, label } = props;
  const t = useT();
  return (
    <>
      <LeaveGuard
        when={() => opened}
        words={{
          title: t('secret.leaveTitle'),
          text: t('secret.leaveText', { what: label }),
          stay: t('secret.leaveStay'),
          leave: t('secret.leaveAnyway'),
        }}
      />
      <Modal
        opened={opened}
        onClose={() => {}}
        closeOnEscape={false}
        closeOnClickOutside={false}
        withCloseButton={false}
        title={title}
      >
        {opened && <SecretBody {...props} />}
      </Modal>
    </>
  );
}

function SecretBody({
  label,
  secret,
  copyLabel,
  storedLabel,
  testId,
  children,
  onStored,
}: Omit<Parameters<typeof SecretShownOnce>[0], 'opened' | 'title'>) {
  const t = useT();
  const labelId = useId();
  const box = useRef<HTMLElement>(null);
  return (
    <Stack>
      <Alert color="orange" title={t('secret.shownOnlyNow')} styles={wrappingAlert}>
        {children}
      </Alert>
      <Text size="sm" fw={600} id={labelId}>
        {label}
      </Text>
      <Code
        block
        ref={box}
        aria-labelledby={labelId}
        data-testid={testId}
        style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap', userSelect: 'all' }}
      >
        {secret}
      </Code>
      <CopyAndStored
        text={secret}
        box={box}
        copyLabel={copyLabel}
        storedLabel={storedLabel}
        onStored={onStored}
      />
    </Stack>
  );
}

/**
 * Under something shown once: Copy (where the browser will not, the text is left selected and
 * said so) and the one button that closes it.
 */
export function CopyAndStored({
  text,
  box,
  copyLabel,
  storedLabel,
  onStored,
}: {
  text: string;
  /** Where the text is shown, selected when it cannot be copied. */
  box: RefObject<HTMLElement | null>;
  copyLabel: string;
  storedLabel: string;
  onStored: () => void;
}) {
  const t = useT();
  const [outcome, setOutcome] = useState<CopyOutcome | null>(null);
  return (
    <>
      {outcome === 'by-hand' && (
        <Alert color="yellow" role="status" data-testid="copy-by-hand">
          {t('secret.copyByHand')}
        </Alert>
      )}
      <Group justify="space-between">
        <Button
          variant="default"
          onClick={() => {
            if (box.current !== null) void copyText(text, box.current).then(setOutcome);
          }}
        >
          {outcome === 'copied' ? t('secret.copied') : copyLabel}
        </Button>
        <Button onClick={onStored}>{storedLabel}</Button>
      </Group>
    </>
  );
}
