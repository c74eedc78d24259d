import { Alert, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { PASSWORD_MIN_LENGTH, messageCatalog, passwordChangeRequest } from '@svc/shared';
import { useState } from 'react';
import { z } from 'zod';
import { changePassword } from '../api';
import { schemaResolver } from '../forms';
import { refusalOf } from '../messages';
import { t as translate, useT } from '../i18n';

interface Values {
  currentPassword: string;
  newPassword: string;
  confirmation: string;
}

/** The shared request schema plus the one rule that never reaches the server. */
const schema = passwordChangeRequest
  .extend({ confirmation: z.string() })
  .refine((v) => v.newPassword === v.confirmation, {
    path: ['confirmation'],
    // The catalog's text, so the form's error map knows it by its code.
    message: messageCatalog.passwords_differ,
  });

/** Any signed-in administrator changes their own password (the server judges strength). */
export function OwnPasswordForm({ onDone }: { onDone: (message: string) => void }) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { currentPassword: '', newPassword: '', confirmation: '' },
    validate: schemaResolver<Values>(schema),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(
    async (values) => {
      setSaving(true);
      setProblem(null);
      try {
        await changePassword(values.currentPassword, values.newPassword);
        onDone(translate('password.changed'));
      } catch (error) {
        const refusal = refusalOf(error, 'password', ['currentPassword', 'newPassword']);
        form.setErrors(refusal.fields);
        setProblem(refusal.banner);
      } finally {
        setSaving(false);
      }
    },
    () => setProblem(null),
  );

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={t('password.submit')} noValidate>
      <Stack>
        {problem !== null && (
          <Alert color="red" role="alert" data-testid="own-password-error">
            {problem}
          </Alert>
        )}
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
          label={t('password.current')}
          autoComplete="current-password"
          data-autofocus
          {...form.getInputProps('currentPassword')}
        />
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
          label={t('password.new')}
          description={t('password.newHint', { min: PASSWORD_MIN_LENGTH })}
          autoComplete="new-password"
          {...form.getInputProps('newPassword')}
        />
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': t('common.showPassword') }}
          label={t('password.confirm')}
          autoComplete="new-password"
          {...form.getInputProps('confirmation')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            {t('password.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
