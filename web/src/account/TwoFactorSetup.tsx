import {
  Alert,
  Button,
  Code,
  Image,
  List,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import type { TwoFactorSetup as Setup } from '@svc/shared';
import { ErrorCode } from '@svc/shared';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { describeError } from '../messages';
import { enableTwoFactor, startTwoFactor } from './two-factor-api';

type Step =
  | { kind: 'password' }
  | { kind: 'scan'; setup: Setup }
  | { kind: 'codes'; recoveryCodes: string[] };

/**
 * Enrolment of an authenticator app: the current password again, then the QR code (or the
 * key typed by hand) and the app's first code, then the ten recovery codes, shown once.
 */
export function TwoFactorSetup({ onDone }: { onDone: () => void }) {
  const t = useT();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setProblem(null);
    try {
      await action();
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.code === ErrorCode.twoFactorInvalid
          ? t('twoFactor.codeWrong')
          : describeError(error, 'password'),
      );
    } finally {
      setBusy(false);
    }
  }
  const submitPassword = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void run(async () => {
      const setup = await startTwoFactor(password);
      setPassword('');
      setStep({ kind: 'scan', setup });
    });
  };
  const submitCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void run(async () => {
      const { recoveryCodes } = await enableTwoFactor(code.trim());
      setStep({ kind: 'codes', recoveryCodes });
    });
  };

  const error = problem !== null && (
    <Alert color="red" data-testid="two-factor-error">
      {problem}
    </Alert>
  );
  if (step.kind === 'password') {
    return (
      <form onSubmit={submitPassword} aria-label={t('twoFactor.confirmPassword')} noValidate>
        <Stack>
          <Text size="sm">{t('twoFactor.intro')}</Text>
          {error}
          <PasswordInput
            visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
            label={t('password.current')}
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Button type="submit" loading={busy} disabled={password === ''}>
            {t('twoFactor.continue')}
          </Button>
        </Stack>
      </form>
    );
  }
  if (step.kind === 'scan') {
    return (
      <form onSubmit={submitCode} aria-label={t('twoFactor.scanAndConfirm')} noValidate>
        <Stack>
          <Text size="sm">{t('twoFactor.scan')}</Text>
          <Image src={step.setup.qrSvg} alt={t('twoFactor.qrAlt')} w={200} h={200} mx="auto" />
          <Text size="sm">
            <Tx
              k="twoFactor.typeKey"
              values={{ secret: step.setup.secret }}
              components={{ code: <Code data-testid="two-factor-secret" /> }}
            />
          </Text>
          {error}
          <TextInput
            label={t('twoFactor.codeFromApp')}
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
          />
          <Button type="submit" loading={busy} disabled={!/^\d{6}$/.test(code.trim())}>
            {t('twoFactor.turnOn')}
          </Button>
        </Stack>
      </form>
    );
  }
  return (
    <Stack>
      <Alert color="green" title={t('twoFactor.isOn')}>
        {t('twoFactor.keepCodes')}
      </Alert>
      <SimpleGrid cols={2} data-testid="recovery-codes">
        <List listStyleType="none" spacing={4}>
          {step.recoveryCodes.map((c) => (
            <List.Item key={c}>
              <Code>{c}</Code>
            </List.Item>
          ))}
        </List>
      </SimpleGrid>
      <Button onClick={onDone}>{t('twoFactor.savedCodes')}</Button>
    </Stack>
  );
}
