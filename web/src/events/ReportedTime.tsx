import { Badge } from '@mantine/core';
import type { RecognitionEventOut } from '@svc/shared';
import { wholeTextBadge } from '../components/badgeStyles';
import { useT } from '../i18n';
import { formatTime } from '../people/format';

/**
 * The device's clock was more than a day off: the event's time is when the service received
 * it, and the device's own time is shown as what it reported.
 */
export function ReportedTime({ event }: { event: RecognitionEventOut }) {
  const t = useT();
  if (event.reportedTime === null) return null;
  return (
    <Badge
      color="orange"
      variant="light"
      data-testid="event-reported-time"
      title={t('events.reportedTimeHelp')}
      styles={wholeTextBadge}
    >
      {t('events.reportedTime', { time: formatTime(event.reportedTime) })}
    </Badge>
  );
}
