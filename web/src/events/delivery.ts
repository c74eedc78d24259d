import type { Delivery, DeliveryStateName } from '@svc/shared';
import { formatTime } from '../people/format';

export const deliveryLabel: Record<DeliveryStateName, { text: string; color: string }> = {
  pending: { text: 'Pending', color: 'yellow' },
  delivered: { text: 'Delivered', color: 'green' },
  expired: { text: 'Expired', color: 'red' },
  none: { text: 'Not sent', color: 'gray' },
};

export interface DeliveryStep {
  title: string;
  detail: string | null;
  /** A failure: shown in red. */
  failed: boolean;
}

/**
 * The delivery to the panel as steps, from what the event row keeps: its state, how many tries
 * (a delivery counts one too), when it was delivered or is tried next, and the last failure.
 * The server keeps no per-try log: repeated failures show as one step with their count.
 */
export function deliverySteps(receivedAt: string, delivery: Delivery): DeliveryStep[] {
  const steps: DeliveryStep[] = [
    { title: `Received ${formatTime(receivedAt)}`, detail: null, failed: false },
  ];
  if (delivery.state === 'none') {
    steps.push({
      title: 'Not sent',
      detail: 'No panel route was configured when the event arrived.',
      failed: false,
    });
    return steps;
  }
  const failures = delivery.attempts - (delivery.state === 'delivered' ? 1 : 0);
  if (failures > 0) {
    steps.push({
      title: `${failures} failed ${failures === 1 ? 'try' : 'tries'}`,
      detail: delivery.error === null ? null : `Reason of the last failure: ${delivery.error}`,
      failed: delivery.state !== 'delivered',
    });
  }
  if (delivery.state === 'delivered') {
    steps.push({
      title: `Delivered ${formatTime(delivery.deliveredAt)}`,
      detail: null,
      failed: false,
    });
  } else if (delivery.state === 'pending') {
    steps.push({
      title:
        delivery.nextAttemptAt === null
          ? 'Waiting to be sent'
          : `Next try ${formatTime(delivery.nextAttemptAt)}`,
      detail: failures > 0 ? 'Later events wait behind this one, in order.' : null,
      failed: false,
    });
  } else {
    steps.push({
      title: 'Expired: no longer sent',
      detail: failures === 0 && delivery.error !== null ? delivery.error : null,
      failed: true,
    });
  }
  return steps;
}
