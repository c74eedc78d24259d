import { Alert, Loader, Text } from '@mantine/core';
import type { TwoFactorStatus } from '@svc/shared';
import { useEffect, useState } from 'react';
import { useT } from '../i18n';
import { describeError } from '../messages';
import { said, type Said } from '../said';
import { twoFactorState } from './two-factor-api';
import { TwoFactorSetup } from './TwoFactorSetup';

/** The account menu's dialog: the state of one's own second factor, or its enrolment. */
export default function TwoFactorPanel({
  onDone,
  onHolding,
  onCancel,
}: {
  onDone: (message: Said) => void;
  /** The enrolment holds a secret or codes: the dialog closes only through its buttons. */
  onHolding: (holding: boolean) => void;
  onCancel: () => void;
}) {
  const t = useT();
  const [state, setState] = useState<TwoFactorStatus | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    twoFactorState(controller.signal).then(setState, (error: unknown) => {
      if (!controller.signal.aborted) setProblem(describeError(error, 'other'));
    });
    return () => controller.abort();
  }, []);

  if (problem !== null) return <Alert color="red">{problem}</Alert>;
  if (state === null) return <Loader role="status" aria-label={t('common.loading')} />;
  if (state.enabled) {
    return (
      <Text data-testid="two-factor-on">
        {t('twoFactor.onLeft', { left: state.recoveryCodesLeft })}
      </Text>
    );
  }
  return (
    <TwoFactorSetup
      onDone={() => onDone(said('twoFactor.turnedOn'))}
      onHolding={onHolding}
      onCancel={onCancel}
    />
  );
}
