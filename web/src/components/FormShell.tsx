import { Alert, Button, Group, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { TheirChangesNotice, type ConflictReview } from '../conflict';
import { useT } from '../i18n';
import { useFormSubmit, type SubmittedForm } from '../useFormSubmit';

/**
 * A form of a dialog or a page section, saved through useFormSubmit: its refusal on top (the
 * server's words, the field messages beside their inputs), what someone else changed since it
 * was opened (with `conflict`), the fields, and the submit button, busy while `save` runs.
 */
export function FormShell<Values>({
  form,
  save,
  conflict,
  context,
  label,
  submitLabel,
  failTitle,
  failTestId,
  children,
}: {
  form: SubmittedForm<Values>;
  /** Sends the values once they pass the form's own check; a refusal is thrown. */
  save: (values: Values) => Promise<unknown>;
  conflict?: ConflictReview<Values>;
  context?: 'password';
  /** The form's accessible name. */
  label: string;
  /** "Save" unless said. */
  submitLabel?: string;
  /** The refusal's title, "Not saved" unless said; null: the text alone. */
  failTitle?: string | null;
  failTestId?: string;
  children: ReactNode;
}) {
  const t = useT();
  const submit = useFormSubmit(form, { conflict, context });
  const onSubmit = submit.handler(async (values) => {
    await save(values);
    return null;
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label={label}>
      <Stack>
        {submit.message !== null && (
          <Alert
            color="red"
            title={failTitle === undefined ? t('common.notSaved') : (failTitle ?? undefined)}
            role="alert"
            data-testid={failTestId}
          >
            {submit.message.text}
          </Alert>
        )}
        {conflict !== undefined && conflict.changes !== null && (
          <TheirChangesNotice what={conflict.what} changes={conflict.changes} />
        )}
        {children}
        <Group justify="flex-end">
          <Button type="submit" loading={submit.busy}>
            {submitLabel ?? t('common.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
