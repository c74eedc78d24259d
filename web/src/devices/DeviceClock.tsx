import { Alert, Text } from '@mantine/core';
import type { DeviceOut } from '@svc/shared';
import { t, useT } from '../i18n';
import { formatTime } from '../people/format';

/** "3 s ahead of", "5 h behind": how far a device's clock is from the central service's. */
export function driftText(driftMs: number): string {
  const s = Math.round(Math.abs(driftMs) / 1000);
  const unit = s >= 172_800 ? 'days' : s >= 7200 ? 'hours' : 'seconds';
  const amount =
    unit === 'days' ? Math.round(s / 86_400) : unit === 'hours' ? Math.round(s / 3600) : s;
  return t(driftMs >= 0 ? 'clock.ahead' : 'clock.behind', { unit, amount });
}

/**
 * The device's clock as last measured; a drift the service warns about is an alert with the
 * service's own words (its events further than a day off are kept with our receive time).
 */
export function DeviceClock({ device }: { device: DeviceOut }) {
  const { driftMs, checkedAt } = device.clock;
  const t = useT();
  const warning = device.warnings.find((w) => w.code === 'clock_drift');
  return (
    <>
      <Text size="sm" data-testid="device-clock">
        {driftMs === null
          ? t('clock.notMeasured')
          : t('clock.measured', { drift: driftText(driftMs), time: formatTime(checkedAt) })}
      </Text>
      {warning !== undefined && (
        <Alert color="orange" title={t('clock.wrong')} data-testid="device-clock-warning">
          {driftMs === null
            ? warning.message
            : t('clock.warning', { sn: device.sn, drift: driftText(driftMs) })}
        </Alert>
      )}
    </>
  );
}
