import { Badge } from '@mantine/core';
import type { DeviceOut } from '@svc/shared';
import { wholeTextBadge } from '../components/badgeStyles';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useT } from '../i18n';
import { formatDayTime } from '../i18n/format';

/** "04:12" today, "27 Nov 04:12" before: when the device's key began to be refused. */
export function refusedSince(iso: string, now = new Date()): string {
  return formatDayTime(new Date(iso), now);
}

/**
 * The device calls with a key the service refuses (a rotated key not yet entered on it):
 * "Offline" alone would not say why, nor that the fix is on the device.
 */
export function KeyRefused({ device }: { device: DeviceOut }) {
  const t = useT();
  if (device.keyRefusedAt === null || device.keyRefusedAt === undefined) return null;
  return (
    <Badge
      color="red"
      variant="light"
      data-testid="device-key-refused"
      title={t('devices.keyRefusedHelp')}
      styles={wholeTextBadge}
    >
      {t('devices.keyRefused', { time: refusedSince(device.keyRefusedAt) })}
    </Badge>
  );
}

/** Rotating cuts the device off until the new key is entered on it: asked first. */
export function RotateKeyDialog({
  device,
  onRotate,
  onCancel,
}: {
  device: DeviceOut | null;
  onRotate: (device: DeviceOut) => Promise<void>;
  onCancel: () => void;
}) {
  const t = useT();
  return (
    <ConfirmDialog
      opened={device !== null}
      title={t('devices.rotateTitle', { name: device?.name ?? '' })}
      confirmLabel={t('devices.rotateKey')}
      onCancel={onCancel}
      onConfirm={() => (device === null ? Promise.resolve() : onRotate(device))}
    >
      {t('devices.rotateText', { name: device?.name ?? '', sn: device?.sn ?? '' })}
    </ConfirmDialog>
  );
}
