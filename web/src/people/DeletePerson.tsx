import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { useT } from '../i18n';
import { describeError } from '../messages';
import { keys, queryClient } from '../query';
import { deletePerson } from './api';

/**
 * Delete, after a confirmation that says what it means: the person is erased from every device,
 * not only from this list. The site then follows the erasure on `/people/$id/erasure`.
 */
export function DeletePerson({ id, name }: { id: string; name: string }) {
  const t = useT();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const confirm = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await deletePerson(id);
      queryClient.removeQueries({ queryKey: keys.person(id) });
      void queryClient.invalidateQueries({ queryKey: keys.people });
      void queryClient.invalidateQueries({ queryKey: keys.sync });
      await navigate({ to: '/people/$id/erasure', params: { id } });
    } catch (error) {
      setProblem(describeError(error, 'other'));
      setBusy(false);
    }
  };

  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpen(true)}>
        {t('spaces.delete')}
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('people.deleteTitle', { name })}>
        <Stack>
          <Text data-testid="delete-warning">{t('people.deleteText', { name })}</Text>
          {problem !== null && (
            <Alert color="red" data-testid="delete-problem">
              {problem}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              {t('common.cancel')}
            </Button>
            <Button color="red" loading={busy} onClick={() => void confirm()}>
              {t('people.deleteConfirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
