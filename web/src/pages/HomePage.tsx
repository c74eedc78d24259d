import { AppShell, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import type { SessionUser } from '@svc/shared';
import { useState } from 'react';
import { ServiceStatusCard } from '../components/ServiceStatusCard';
import { useSession } from '../session';
import { useDocumentTitle } from '../useDocumentTitle';

const roleLabel: Record<SessionUser['role'], string> = {
  superadmin: 'Super administrator',
  admin: 'Administrator',
  operator: 'Operator',
};

export function HomePage({ user }: { user: SessionUser }) {
  const { signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
  useDocumentTitle('Home');

  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Text fw={700} size="lg">
            svc management
          </Text>
          <Group gap="sm" wrap="nowrap" data-testid="current-user">
            <Text size="sm" truncate>
              Signed in as{' '}
              <Text span fw={600} data-testid="current-username">
                {user.username}
              </Text>
              {user.displayName !== '' && user.displayName !== user.username && (
                <Text span c="dimmed">
                  {' '}
                  ({user.displayName})
                </Text>
              )}
            </Text>
            <Badge variant="light" data-testid="current-role" title={user.role}>
              {roleLabel[user.role]}
            </Badge>
            <Button
              variant="default"
              size="xs"
              loading={signingOut}
              onClick={() => {
                setSigningOut(true);
                void signOut();
              }}
            >
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Stack maw={1100} mx="auto">
          <Title order={1}>Home</Title>
          <ServiceStatusCard />
        </Stack>
      </AppShell.Main>
    </AppShell>
  );
}
