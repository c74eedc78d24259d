import { PasswordInput } from '@mantine/core';
import { useReportDirty } from './DiscardGuard';
import { useForm } from '@mantine/form';
import { PASSWORD_MIN_LENGTH, messageCatalog, passwordChangeRequest } from '@svc/shared';
import { z } from 'zod';
import { changePassword } from '../api';
import { schemaResolver } from '../forms';
import { useT } from '../i18n';
import { said, type Said } from '../said';
import { FormShell } from './FormShell';

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
export function OwnPasswordForm({
  onDone,
  onDirty,
}: {
  onDone: (message: Said) => void;
  onDirty?: (dirty: boolean) => void;
}) {
  const t = useT();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { currentPassword: '', newPassword: '', confirmation: '' },
    validate: schemaResolver<Values>(schema),
    validateInputOnChange: true,
  });
  useReportDirty(form.isDirty(), onDirty);
  const save = async (values: Values) => {
    await changePassword(values.currentPassword, values.newPassword);
    onDone(said('password.changed'));
  };

  return (
    <FormShell
      form={form}
      context="password"
      label={t('password.submit')}
      submitLabel={t('password.submit')}
      failTitle={null}
      failTestId="own-password-error"
      save={save}
    >
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
    </FormShell>
  );
}
