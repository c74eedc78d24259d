import {
  DELIVERY_FAILURES_KEPT,
  type Delivery,
  type DeliveryFailure,
  type DeliveryStateName,
} from '@svc/shared';
import { t } from '../i18n';
import { formatTime } from '../people/format';

/** A delivery failure in the site's language, from its code and values (never the English). */
export function failureText(failure: {
  errorCode: string | null;
  errorParams: Readonly<Record<string, string | number>>;
}): string {
  return t(`delivery.failure.${failure.errorCode ?? 'panel_failed'}`, failure.errorParams);
}

/** `text`: the catalog key of the state's name. */
export const deliveryLabel: Record<DeliveryStateName, { text: string; color: string }> = {
  pending: { text: 'delivery.state.pending', color: 'yellow' },
  delivered: { text: 'delivery.state.delivered', color: 'green' },
  expired: { text: 'delivery.state.expired', color: 'red' },
  none: { text: 'delivery.state.none', color: 'gray' },
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
    {
      title: t('delivery.received', { time: formatTime(receivedAt) }),
      detail: null,
      failed: false,
      tries: [],
    },
  ];
  if (delivery.state === 'none') {
    steps.push({
      title: t('delivery.state.none'),
      detail: t('delivery.noRoute'),
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
      title: t('delivery.failedTries', { count: failed }),
      detail:
        tries.length === 0
          ? delivery.error === null
            ? null
            : t('delivery.lastReason', { reason: failureText(delivery) })
          : unlisted > 0
            ? t('delivery.unlisted', { count: unlisted, kept: DELIVERY_FAILURES_KEPT })
            : null,
      failed: delivery.state !== 'delivered',
      tries,
    });
  }
  if (delivery.state === 'delivered') {
    steps.push({
      title: t('delivery.deliveredAt', { time: formatTime(delivery.deliveredAt) }),
      detail: null,
      failed: false,
      tries: [],
    });
  } else if (delivery.state === 'pending') {
    steps.push({
      title:
        delivery.nextAttemptAt === null
          ? t('delivery.waiting')
          : t('delivery.nextTry', { time: formatTime(delivery.nextAttemptAt) }),
      detail: failed > 0 ? t('delivery.inOrder') : null,
      failed: false,
      tries: [],
    });
  } else {
    steps.push({
      title: t('delivery.expired'),
      detail: failed === 0 && delivery.error !== null ? failureText(delivery) : null,
      failed: true,
      tries: [],
    });
  }
  return steps;
}
