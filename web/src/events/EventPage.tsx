import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Image,
  Loader,
  Modal,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import type { RecognitionEventOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { useT } from '../i18n';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { getEvent, snapshotUrl } from './api';
import { deliveryLabel } from './delivery';
import { DeliveryHistory } from './DeliveryHistory';
import { ReportedTime } from './ReportedTime';
import { Tx } from '../i18n/Tx';

const route = getRouteApi('/events/$id');

/**
 * One recognition event: who, where, the snapshot in a viewer and the delivery to the panel,
 * each failed try and its reason written out (DeliveryHistory.tsx). `delivery` messages of the
 * stream invalidate `keys.events`, so the delivery part follows by itself.
 */
export function EventPage() {
  const { id } = route.useParams();
  const t = useT();
  useDocumentTitle(t('event.title'));
  const event = useApiQuery([...keys.events, 'one', id], (signal) => getEvent(id, signal));

  return (
    <Stack>
      <Link to="/events">{t('event.back')}</Link>
      {event.error !== null && (
        <Alert color="red" title={t('event.notLoaded')}>
          {event.error}
        </Alert>
      )}
      {event.data === null && event.loading && (
        <Loader role="status" aria-label={t('event.loading')} />
      )}
      {event.data !== null && <EventDetails event={event.data} />}
    </Stack>
  );
}

function EventDetails({ event }: { event: RecognitionEventOut }) {
  const t = useT();
  const delivery = deliveryLabel[event.delivery.state];
  const unknown = t('event.unknownPerson');
  return (
    <>
      <Group justify="space-between">
        <Title order={1}>
          {t('event.heading', { person: event.person?.name ?? unknown, device: event.device.name })}
        </Title>
        <Badge color={delivery.color} variant="light" size="lg" data-testid="event-delivery">
          {t(delivery.text)}
        </Badge>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card withBorder component="section" aria-label={t('event.snapshot')}>
          <Snapshot event={event} />
        </Card>
        <Card withBorder component="section" aria-label={t('event.details')}>
          <Stack gap="xs">
            <Text data-testid="event-time">
              {t('event.time', { time: formatTime(event.time) })}
            </Text>
            <ReportedTime event={event} />
            <Text>
              {event.person === null ? (
                t('event.person', { name: unknown })
              ) : (
                <Tx
                  k="event.personLink"
                  values={{ name: event.person.name }}
                  components={{ a: <Link to="/people/$id" params={{ id: event.person.id }} /> }}
                />
              )}
            </Text>
            <Text>
              {event.device.id === null ? (
                t('event.device', { name: event.device.name, sn: event.device.sn })
              ) : (
                <Tx
                  k="event.deviceLink"
                  values={{ name: event.device.name, sn: event.device.sn }}
                  components={{ a: <Link to="/devices/$id" params={{ id: event.device.id }} /> }}
                />
              )}
            </Text>
            <Text>{t('event.space', { name: event.space?.name ?? '—' })}</Text>
            <Text>{t('event.score', { score: event.score.toFixed(2) })}</Text>
            <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
              {t('event.deviceEventId', { id: event.eventId })}
            </Text>
          </Stack>
        </Card>
      </SimpleGrid>
      <Card withBorder component="section" aria-labelledby="delivery-title">
        <Title order={2} size="h3" id="delivery-title" mb="sm">
          {t('event.deliveryTitle')}
        </Title>
        <DeliveryHistory event={event} />
      </Card>
    </>
  );
}

/** The snapshot on the page, and at full size in a dialog (never a bare JPEG in a new tab). */
function Snapshot({ event }: { event: RecognitionEventOut }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  if (event.snapshotUrl === null) {
    return <Text c="dimmed">{t('event.noSnapshot')}</Text>;
  }
  const src = snapshotUrl(event.id);
  const alt = t('event.snapshotAlt', { time: formatTime(event.time) });
  return (
    <Stack gap="xs" align="start">
      <Image src={src} alt={alt} maw={320} radius="sm" />
      <Button variant="light" size="xs" onClick={() => setOpen(true)}>
        {t('event.fullSize')}
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={t('event.snapshot')}
        size="auto"
        centered
      >
        <Image src={src} alt={alt} mah="80vh" fit="contain" data-testid="snapshot-full" />
      </Modal>
    </Stack>
  );
}
