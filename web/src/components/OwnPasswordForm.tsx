import { Alert, Button, Group, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { passwordChangeRequest } from '@svc/shared';
import { useState } from 'react';
import { z } from 'zod';
import { changePassword } from '../api';
import { schemaResolver } from '../forms';
import { describeError } from '../messages';

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
    message: 'The two new passwords are not the same.',
  });

/** Any signed-in administrator changes their own password (the server judges strength). */
export function OwnPasswordForm({ onDone }: { onDone: (message: string) => void }) {
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { currentPassword: '', newPassword: '', confirmation: '' },
    validate: schemaResolver<Values>(schema),
    validateInputOnChange: true,
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = form.onSubmit(async (values) => {
    setSaving(true);
    setProblem(null);
    try {
      await changePassword(values.currentPassword, values.newPassword);
      onDone('Your password was changed.');
    } catch (error) {
      setProblem(describeError(error, 'password'));
    } finally {
      setSaving(false);
    }
  });

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Change password" noValidate>
      <Stack>
        {problem !== null && (
          <Alert color="red" role="alert" data-testid="own-password-error">
            {problem}
          </Alert>
        )}
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          data-autofocus
          {...form.getInputProps('currentPassword')}
        />
        <PasswordInput
          label="New password"
          description="At least 12 characters; the service refuses weak ones"
          autoComplete="new-password"
          {...form.getInputProps('newPassword')}
        />
        <PasswordInput
          label="Confirm new password"
          autoComplete="new-password"
          {...form.getInputProps('confirmation')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
