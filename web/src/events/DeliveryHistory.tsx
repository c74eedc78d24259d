import { Table, Text, Timeline } from '@mantine/core';
import type { DeliveryFailure, RecognitionEventOut } from '@svc/shared';
import { useT } from '../i18n';
import { formatTime } from '../people/format';
import { keys, useApiQuery } from '../query';
import { getDeliveryHistory } from './api';
import { deliverySteps, failureText } from './delivery';

/**
 * The event's way to the panel: each failed try with its time and reason, then the delivery.
 * Under `keys.events`, so the stream's `delivery` messages (sent once a failed try is logged)
 * reload it with the event.
 */
export function DeliveryHistory({ event }: { event: RecognitionEventOut }) {
  useT();
  const history = useApiQuery([...keys.events, 'one', event.id, 'deliveries'], (signal) =>
    getDeliveryHistory(event.id, signal),
  );
  return (
    <Timeline bulletSize={14} lineWidth={2} data-testid="delivery-history">
      {deliverySteps(event.receivedAt, event.delivery, history.data?.failures ?? null).map(
        (step) => (
          <Timeline.Item
            key={step.title}
            title={step.title}
            color={step.failed ? 'red' : 'blue'}
            data-testid="delivery-step"
          >
            {step.detail !== null && (
              <Text size="sm" c={step.failed ? 'red.8' : 'dimmed'} data-testid="delivery-detail">
                {step.detail}
              </Text>
            )}
            {step.tries.length > 0 && <FailedTries tries={step.tries} />}
          </Timeline.Item>
        ),
      )}
    </Timeline>
  );
}

function FailedTries({ tries }: { tries: DeliveryFailure[] }) {
  const t = useT();
  return (
    <Table aria-label={t('delivery.failedTriesTable')} fz="sm" verticalSpacing={4} mt={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('delivery.try')}</Table.Th>
          <Table.Th>{t('delivery.time')}</Table.Th>
          <Table.Th>{t('delivery.reason')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {tries.map((failure) => (
          <Table.Tr key={failure.attempt} data-testid="delivery-failure">
            <Table.Td>{failure.attempt}</Table.Td>
            <Table.Td>{formatTime(failure.at)}</Table.Td>
            <Table.Td c="red.8" style={{ overflowWrap: 'anywhere' }}>
              {failureText(failure)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
