import { Badge } from '@mantine/core';
import { useT } from '../i18n';
import { useLiveStatus, type LiveStatus } from '../live';

const liveColor: Record<LiveStatus, string> = {
  connecting: 'gray',
  live: 'green',
  reconnecting: 'orange',
};

/** Whether the page's data follows the live stream right now. */
export function LiveBadge() {
  const t = useT();
  const live = useLiveStatus();
  return (
    <Badge color={liveColor[live]} variant="dot" size="lg" data-testid="live-status" role="status">
      {t(`live.${live}`)}
    </Badge>
  );
}
