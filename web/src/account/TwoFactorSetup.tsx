import {
  Alert,
  Button,
  Code,
  Group,
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
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { LeaveGuard } from '../components/LeaveGuard';
import { CopyAndStored } from '../components/SecretShownOnce';
import { useT } from '../i18n';
import { Tx } from '../i18n/Tx';
import { describeError } from '../messages';
import { enableTwoFactor, startTwoFactor } from './two-factor-api';

type Step =
  | { kind: 'password' }
  | { kind: 'scan'; setup: Setup }
  | { kind: 'codes'; recoveryCodes: string[] };

/** A code as an app shows it ("123 456") or as typed ("123456 "): its six digits. */
const digitsOf = (code: string) => code.replace(/\s/g, '');

/**
 * Enrolment of an authenticator app: the current password again, then the QR code (or the
 * key typed by hand) and the app's first code, then the ten recovery codes, shown once.
 * From the QR code on, something would be lost by leaving (the secret already in the app, the
 * codes never shown again): `onHolding(true)` tells the dialog around it to close only through
 * this form's own buttons, and leaving the page asks first.
 */
export function TwoFactorSetup({
  onDone,
  onHolding,
  onCancel,
}: {
  onDone: () => void;
  onHolding?: (holding: boolean) => void;
  /** A way out before the codes, where the dialog's × is gone (none on a page of its own). */
  onCancel?: () => void;
}) {
  const t = useT();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const holding = step.kind !== 'password';
  useEffect(() => onHolding?.(holding), [holding, onHolding]);
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
      const { recoveryCodes } = await enableTwoFactor(digitsOf(code));
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
            onChange={(e) => {
              setCode(e.currentTarget.value);
              // "That code is wrong" was about the code before this one.
              setProblem(null);
            }}
          />
          <Group justify="space-between">
            {onCancel !== undefined && (
              <Button variant="default" onClick={onCancel}>
                {t('common.cancel')}
              </Button>
            )}
            <Button type="submit" loading={busy} disabled={!/^\d{6}$/.test(digitsOf(code))}>
              {t('twoFactor.turnOn')}
            </Button>
          </Group>
        </Stack>
      </form>
    );
  }
  return <RecoveryCodes codes={step.recoveryCodes} onDone={onDone} />;
}

/** The ten recovery codes, shown once: copied at a click, gone only through "I have saved". */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  return (
    <Stack>
      <LeaveGuard
        when={() => true}
        words={{
          title: t('secret.leaveTitle'),
          text: t('secret.leaveText', { what: t('twoFactor.recoveryCodes') }),
          stay: t('secret.leaveStay'),
          leave: t('secret.leaveAnyway'),
        }}
      />
      <Alert color="green" title={t('twoFactor.isOn')}>
        {t('twoFactor.keepCodes')}
      </Alert>
      <SimpleGrid cols={2} data-testid="recovery-codes" ref={box}>
        <List listStyleType="none" spacing={4}>
          {codes.map((c) => (
            <List.Item key={c}>
              <Code>{c}</Code>
            </List.Item>
          ))}
        </List>
      </SimpleGrid>
      <CopyAndStored
        text={codes.join('\n')}
        box={box}
        copyLabel={t('twoFactor.copyCodes')}
        storedLabel={t('twoFactor.savedCodes')}
        onStored={onDone}
      />
    </Stack>
  );
}
