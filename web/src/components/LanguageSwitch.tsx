import { Button } from '@mantine/core';
import type { Locale } from '@svc/shared';
import { useState } from 'react';
import { currentLocale, useT } from '../i18n';

/** Each language named in itself, so a person who cannot read the other one finds theirs. */
const ownName: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };

/**
 * The language switch (header and sign-in page): with two languages, one button names the
 * other in its own words; the site changes at once and `choose` keeps the choice. A plain
 * button, not a menu, so the sign-in page's first load carries no popover code.
 */
export function LanguageSwitch({ choose }: { choose: (lng: Locale) => Promise<void> }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const other: Locale = currentLocale() === 'zh-CN' ? 'en' : 'zh-CN';
  return (
    <Button
      variant="subtle"
      size="xs"
      px={6}
      loading={busy}
      lang={other}
      title={t('shell.switchLanguage', { language: ownName[other] })}
      data-testid="language-switch"
      onClick={() => {
        setBusy(true);
        void choose(other).finally(() => setBusy(false));
      }}
    >
      {ownName[other]}
    </Button>
  );
}
