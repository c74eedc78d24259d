import { Badge, Image, Table, Text, Tooltip } from '@mantine/core';
import type { DeliveryStateName, RecognitionEventOut as RecognitionEvent } from '@svc/shared';
import { formatTime } from '../people/format';
import { Link } from '../nav';

const deliveryLabel: Record<DeliveryStateName, { text: string; color: string }> = {
  pending: { text: 'Pending', color: 'yellow' },
  delivered: { text: 'Delivered', color: 'green' },
  expired: { text: 'Expired', color: 'red' },
  none: { text: 'Not sent', color: 'gray' },
};

export function EventTable({ items }: { items: RecognitionEvent[] }) {
  if (items.length === 0) return <Text data-testid="events-empty">No events.</Text>;
  return (
    <Table striped aria-label="Recognition events" data-testid="events-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Snapshot</Table.Th>
          <Table.Th>Time</Table.Th>
          <Table.Th>Person</Table.Th>
          <Table.Th>Device</Table.Th>
          <Table.Th>Space</Table.Th>
          <Table.Th>Score</Table.Th>
          <Table.Th>Delivery</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {items.map((event) => {
          const delivery = deliveryLabel[event.delivery.state];
          return (
            <Table.Tr key={event.id} data-testid="event-row" data-event-id={event.id}>
              <Table.Td w={72}>
                {event.snapshotUrl === null ? (
                  <Text size="xs" c="dimmed">
                    —
                  </Text>
                ) : (
                  <a
                    href={`/api/recognition/events/${event.id}/snapshot`}
                    target="_blank"
                    rel="noreferrer"
                  >
                    <Image
                      src={`/api/recognition/events/${event.id}/snapshot`}
                      alt={`Snapshot of event at ${formatTime(event.time)}`}
                      w={56}
                      h={56}
                      fit="cover"
                      radius="sm"
                      loading="lazy"
                    />
                  </a>
                )}
              </Table.Td>
              <Table.Td data-testid="event-time">{formatTime(event.time)}</Table.Td>
              <Table.Td data-testid="event-person">
                {event.person === null ? (
                  <Text c="dimmed">Unknown person</Text>
                ) : (
                  <Link to="/people/$id" params={{ id: event.person.id }}>
                    {event.person.name}
                  </Link>
                )}
              </Table.Td>
              <Table.Td data-testid="event-device">
                {event.device.name}
                <Text size="xs" c="dimmed">
                  {event.device.sn}
                </Text>
              </Table.Td>
              <Table.Td data-testid="event-space">{event.space?.name ?? '—'}</Table.Td>
              <Table.Td>{event.score.toFixed(2)}</Table.Td>
              <Table.Td>
                <Tooltip
                  label={event.delivery.error ?? ''}
                  disabled={event.delivery.error === null}
                >
                  <Badge color={delivery.color} variant="light" data-testid="event-delivery">
                    {delivery.text}
                  </Badge>
                </Tooltip>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
