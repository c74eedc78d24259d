import {
  DELIVERY_FAILURES_KEPT,
  type Delivery,
  type DeliveryFailure,
  type DeliveryStateName,
} from '@svc/shared';
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
  /** The failed tries the server kept, oldest first (only on the failures step). */
  tries: DeliveryFailure[];
}

/**
 * The delivery to the panel as steps: received, the failed tries (each with its time and
 * reason, from the server's log of the last DELIVERY_FAILURES_KEPT), then delivered, the next
 * try or expired. `attempts` counts the delivery too; `failures` is null until loaded, and an
 * event whose tries predate the log has none listed: the last reason stands in for them.
 */
export function deliverySteps(
  receivedAt: string,
  delivery: Delivery,
  failures: DeliveryFailure[] | null,
): DeliveryStep[] {
  const steps: DeliveryStep[] = [
    { title: `Received ${formatTime(receivedAt)}`, detail: null, failed: false, tries: [] },
  ];
  if (delivery.state === 'none') {
    steps.push({
      title: 'Not sent',
      detail: 'No panel route was configured when the event arrived.',
      failed: false,
      tries: [],
    });
    return steps;
  }
  const failed = delivery.attempts - (delivery.state === 'delivered' ? 1 : 0);
  const tries = failures ?? [];
  if (failed > 0) {
    const unlisted = failed - tries.length;
    steps.push({
      title: `${failed} failed ${failed === 1 ? 'try' : 'tries'}`,
      detail:
        tries.length === 0
          ? delivery.error === null
            ? null
            : `Reason of the last failure: ${delivery.error}`
          : unlisted > 0
            ? `The first ${unlisted} ${unlisted === 1 ? 'try is' : 'tries are'} not listed: only the last ${DELIVERY_FAILURES_KEPT} are kept.`
            : null,
      failed: delivery.state !== 'delivered',
      tries,
    });
  }
  if (delivery.state === 'delivered') {
    steps.push({
      title: `Delivered at ${formatTime(delivery.deliveredAt)}`,
      detail: null,
      failed: false,
      tries: [],
    });
  } else if (delivery.state === 'pending') {
    steps.push({
      title:
        delivery.nextAttemptAt === null
          ? 'Waiting to be sent'
          : `Next try ${formatTime(delivery.nextAttemptAt)}`,
      detail: failed > 0 ? 'Later events wait behind this one, in order.' : null,
      failed: false,
      tries: [],
    });
  } else {
    steps.push({
      title: 'Expired: no longer sent',
      detail: failed === 0 && delivery.error !== null ? delivery.error : null,
      failed: true,
      tries: [],
    });
  }
  return steps;
}
