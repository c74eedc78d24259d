import { Badge, Image, Table, Text } from '@mantine/core';
import type { RecognitionEventOut as RecognitionEvent } from '@svc/shared';
import { formatTime } from '../people/format';
import { useT } from '../i18n';
import { Link } from '../nav';
import { snapshotUrl } from './api';
import { deliveryLabel, failureText } from './delivery';
import { ReportedTime } from './ReportedTime';
import { Serial } from '../components/Serial';
import { wrapInCell } from '../components/badgeStyles';

export function EventTable({ items }: { items: RecognitionEvent[] }) {
  const t = useT();
  if (items.length === 0) return <Text data-testid="events-empty">{t('events.none')}</Text>;
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped aria-label={t('events.table')} data-testid="events-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('events.col.snapshot')}</Table.Th>
            <Table.Th>{t('events.col.time')}</Table.Th>
            <Table.Th>{t('events.col.person')}</Table.Th>
            <Table.Th>{t('events.col.device')}</Table.Th>
            <Table.Th>{t('events.col.space')}</Table.Th>
            <Table.Th>{t('events.col.score')}</Table.Th>
            <Table.Th>{t('events.col.delivery')}</Table.Th>
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
                    <Link to="/events/$id" params={{ id: event.id }}>
                      <Image
                        src={snapshotUrl(event.id)}
                        alt={t('events.snapshotAlt', { time: formatTime(event.time) })}
                        w={56}
                        h={56}
                        fit="cover"
                        radius="sm"
                        loading="lazy"
                      />
                    </Link>
                  )}
                </Table.Td>
                <Table.Td data-testid="event-time">
                  <Link to="/events/$id" params={{ id: event.id }} size="sm">
                    {formatTime(event.time)}
                  </Link>
                  <ReportedTime event={event} />
                </Table.Td>
                <Table.Td data-testid="event-person" style={wrapInCell}>
                  {event.person === null ? (
                    <Text c="dimmed">{t('event.unknownPerson')}</Text>
                  ) : (
                    <Link to="/people/$id" params={{ id: event.person.id }}>
                      {event.person.name}
                    </Link>
                  )}
                </Table.Td>
                <Table.Td data-testid="event-device" style={wrapInCell}>
                  {event.device.name}
                  <Text size="xs" c="dimmed">
                    <Serial sn={event.device.sn} />
                  </Text>
                </Table.Td>
                <Table.Td data-testid="event-space" style={wrapInCell}>
                  {event.space?.name ?? '—'}
                </Table.Td>
                <Table.Td>{event.score.toFixed(2)}</Table.Td>
                <Table.Td>
                  <Badge color={delivery.color} variant="light" data-testid="event-delivery">
                    {t(delivery.text)}
                  </Badge>
                  {event.delivery.error !== null && event.delivery.state !== 'delivered' && (
                    <Text size="xs" c="red.8" data-testid="event-delivery-error">
                      {failureText(event.delivery)}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
