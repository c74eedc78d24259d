import { Text } from '@mantine/core';
import { useT } from '../i18n';

/**
 * Above a table wider than a phone: says that it scrolls sideways (a narrow screen shows its
 * first columns only, and nothing else tells that more are there). Hidden on wider screens.
 */
export function ScrollHint() {
  const t = useT();
  return (
    <Text size="xs" c="dimmed" hiddenFrom="sm" data-testid="scroll-hint">
      {t('common.scrollHint')}
    </Text>
  );
}
