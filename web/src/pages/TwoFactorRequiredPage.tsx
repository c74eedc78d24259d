import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { SessionUser } from '@svc/shared';
import { TwoFactorSetup } from '../account/TwoFactorSetup';
import { useT } from '../i18n';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';

/** Shown instead of everything else while two-factor sign-in is required and not set up. */
export function TwoFactorRequiredPage({ user }: { user: SessionUser }) {
  const t = useT();
  const { refresh, signOut } = useSession();
  useDocumentTitle(t('twoFactor.setUp'));
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={480}>
        <Stack>
          <Title order={1} size="h2">
            {t('twoFactor.setUp')}
          </Title>
          <Text size="sm">{t('twoFactor.required', { username: user.username })}</Text>
          <TwoFactorSetup onDone={() => void refresh()} />
          <Button variant="subtle" onClick={() => void signOut()}>
            {t('shell.signOut')}
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
