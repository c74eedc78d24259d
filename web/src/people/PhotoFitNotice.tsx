import { Alert, List } from '@mantine/core';
import { getPhotoFit } from './api';
import { useT } from '../i18n';
import { keys, useApiQuery } from '../query';

/**
 * Issue 34: each device's refusal is worded from its code and the device's limits, never the
 * server's English `message`.
 *
 * The devices of this person that cannot take their photo (too small for a device's minimum
 * side, or not reducible to its byte limit): said here, where the photo is seen, rather than
 * only as a failed push. Nothing when every device can take it.
 */
export function PhotoFitNotice({ personId, photo }: { personId: string; photo: string | null }) {
  const t = useT();
  // The photo's hash is in the key: a new photo is checked again.
  const fit = useApiQuery([...keys.photoFit(personId), photo], (signal) =>
    getPhotoFit(personId, signal),
  );
  if (photo === null || fit.data === null || fit.data.length === 0) return null;
  return (
    <Alert color="orange" title={t('people.unfit')} role="status" data-testid="photo-fit-warning">
      <List size="sm">
        {fit.data.map((device) => (
          <List.Item key={device.deviceId}>
            {t(`people.fit.${device.code}`, {
              ...device.params,
              sn: device.sn,
              name: device.name,
            })}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
