import { SecretShownOnce } from '../components/SecretShownOnce';
import { useT } from '../i18n';

/** A device key, shown once: copy it now, it cannot be shown again. */
export function KeyShownOnce({
  shown,
  onDone,
}: {
  shown: { sn: string; key: string } | null;
  onDone: () => void;
}) {
  const t = useT();
  return (
    <SecretShownOnce
      opened={shown !== null}
      title={t('devices.key')}
      label={t('devices.key')}
      secret={shown?.key ?? ''}
      copyLabel={t('devices.copyKey')}
      storedLabel={t('devices.keyStored')}
      testId="device-key"
      onStored={onDone}
    >
      {t('devices.keyOnce', { sn: shown?.sn ?? '' })}
    </SecretShownOnce>
  );
}
