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
import { recognitionEventOut, type RecognitionEventOut } from '@svc/shared';
import { getRouteApi } from '@tanstack/react-router';
import { useState } from 'react';
import { request } from '../api';
import { Link } from '../nav';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import { useDocumentTitle } from '../useDocumentTitle';
import { deliveryLabel } from './delivery';
import { DeliveryHistory } from './DeliveryHistory';

const route = getRouteApi('/events/$id');

function getEvent(id: string, signal?: AbortSignal): Promise<RecognitionEventOut> {
  return request('GET', `/api/recognition/events/${encodeURIComponent(id)}`, {
    schema: recognitionEventOut,
    signal,
  });
}

/**
 * One recognition event: who, where, the snapshot in a viewer and the delivery to the panel,
 * each failed try and its reason written out (DeliveryHistory.tsx). `delivery` messages of the
 * stream invalidate `keys.events`, so the delivery part follows by itself.
 */
export function EventPage() {
  const { id } = route.useParams();
  useDocumentTitle('Event');
  const event = useApiQuery([...keys.events, 'one', id], (signal) => getEvent(id, signal));

  return (
    <Stack>
      <Link to="/events">← Events</Link>
      {event.error !== null && (
        <Alert color="red" title="This event could not be loaded">
          {event.error}
        </Alert>
      )}
      {event.data === null && event.loading && <Loader aria-label="Loading event" />}
      {event.data !== null && <EventDetails event={event.data} />}
    </Stack>
  );
}

function EventDetails({ event }: { event: RecognitionEventOut }) {
  const delivery = deliveryLabel[event.delivery.state];
  const who = event.person?.name ?? 'Unknown person';
  return (
    <>
      <Group justify="space-between">
        <Title order={1}>
          {who} at {event.device.name}
        </Title>
        <Badge color={delivery.color} variant="light" size="lg" data-testid="event-delivery">
          {delivery.text}
        </Badge>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Card withBorder component="section" aria-label="Snapshot">
          <Snapshot event={event} />
        </Card>
        <Card withBorder component="section" aria-label="Details">
          <Stack gap="xs">
            <Text data-testid="event-time">Time: {formatTime(event.time)}</Text>
            <Text>
              Person:{' '}
              {event.person === null ? (
                'Unknown person'
              ) : (
                <Link to="/people/$id" params={{ id: event.person.id }}>
                  {event.person.name}
                </Link>
              )}
            </Text>
            <Text>
              Device:{' '}
              {event.device.id === null ? (
                event.device.name
              ) : (
                <Link to="/devices/$id" params={{ id: event.device.id }}>
                  {event.device.name}
                </Link>
              )}{' '}
              ({event.device.sn})
            </Text>
            <Text>Space: {event.space?.name ?? '—'}</Text>
            <Text>Score: {event.score.toFixed(2)}</Text>
            <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
              Device event id {event.eventId}
            </Text>
          </Stack>
        </Card>
      </SimpleGrid>
      <Card withBorder component="section" aria-labelledby="delivery-title">
        <Title order={2} size="h3" id="delivery-title" mb="sm">
          Delivery to the panel
        </Title>
        <DeliveryHistory event={event} />
      </Card>
    </>
  );
}

/** The snapshot on the page, and at full size in a dialog (never a bare JPEG in a new tab). */
function Snapshot({ event }: { event: RecognitionEventOut }) {
  const [open, setOpen] = useState(false);
  if (event.snapshotUrl === null) {
    return <Text c="dimmed">The device sent no snapshot with this event.</Text>;
  }
  const src = `/api/recognition/events/${encodeURIComponent(event.id)}/snapshot`;
  const alt = `Snapshot of the event at ${formatTime(event.time)}`;
  return (
    <Stack gap="xs" align="start">
      <Image src={src} alt={alt} maw={320} radius="sm" />
      <Button variant="light" size="xs" onClick={() => setOpen(true)}>
        View full size
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Snapshot" size="auto" centered>
        <Image src={src} alt={alt} mah="80vh" fit="contain" data-testid="snapshot-full" />
      </Modal>
    </Stack>
  );
}
