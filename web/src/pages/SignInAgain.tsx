import { Button, Modal, Text } from '@mantine/core';
import { useT } from '../i18n';
import { useSession } from '../session';
import { LoginForm } from './LoginPage';

/**
 * The session ended while a page was open (it expired, or was ended elsewhere). The page stays
 * mounted under this dialog, blurred, so whatever was typed is there after signing in again;
 * signing in as someone else starts the site over (session.tsx).
 */
export function SignInAgain({ username }: { username: string }) {
  const t = useT();
  const { signOut } = useSession();
  return (
    <Modal
      id="session-ended"
      opened
      onClose={() => undefined}
      withCloseButton={false}
      closeOnEscape={false}
      closeOnClickOutside={false}
      title={t('session.endedTitle')}
      // Blurred past reading: an unattended screen shows no names once its session is gone.
      overlayProps={{ backgroundOpacity: 0.55, blur: 10 }}
      centered
    >
      <LoginForm
        labelledBy="session-ended-title"
        username={username}
        head={<Text size="sm">{t('session.endedKept')}</Text>}
        foot={
          <Button variant="subtle" color="gray" onClick={() => void signOut()}>
            {t('session.endedSignOut')}
          </Button>
        }
      />
    </Modal>
  );
}
